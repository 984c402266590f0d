// Aperture's render-process walker.
//
// The app evaluates this file in every V8 context as soon as the context is created, before
// any page script runs. It evaluates to a function that the app keeps (it is never stored on
// the page's global), so page script cannot reach it. Everything it calls is captured here,
// at creation, from the pristine prototypes: a page that later replaces
// Array.prototype.push, Element.prototype.getAttribute, JSON.stringify or a getter cannot
// change what the walker sees or reports. Objects it builds have no prototype, so setters or
// toJSON planted on Object.prototype / Array.prototype are never consulted.
//
// The wire format is documented once more, as Rust types, in engine/src/protocol.rs; the two
// must agree (protocol.rs's tests read this file to check the error codes and input kinds).
// See handle() at the bottom for the requests and replies.
(function () {
  'use strict';
  const G = globalThis;
  const O = G.Object, R = G.Reflect;
  const apply = R.apply, gpo = O.getPrototypeOf, gopd = O.getOwnPropertyDescriptor;
  const create = O.create, hasOwn = O.hasOwn, setProto = O.setPrototypeOf;
  const stringify = G.JSON.stringify, parse = G.JSON.parse;
  const mathRound = G.Math.round, mathMax = G.Math.max, mathMin = G.Math.min;
  const now = G.performance && G.performance.now ? G.performance.now.bind(G.performance) : G.Date.now;
  const wallNow = G.Date.now;
  const fromCharCode = G.String.fromCharCode, fromCodePoint = G.String.fromCodePoint;
  const strCharCodeAt = G.String.prototype.charCodeAt, strSlice = G.String.prototype.slice;
  const strToLower = G.String.prototype.toLowerCase, strIndexOf = G.String.prototype.indexOf;
  const strSplit = G.String.prototype.split, strLastIndexOf = G.String.prototype.lastIndexOf;
  const strStartsWith = G.String.prototype.startsWith, decodeUri = G.decodeURIComponent;
  const arrJoin = G.Array.prototype.join, isArray = G.Array.isArray;
  const EventCtor = G.Event;
  // Per-node ids that survive across walks while the DOM node lives (a WeakMap, so the page
  // keeps no node alive through us). Lets the engine tell "same row" from "a new identical row".
  const WM = G.WeakMap, wmGet = WM.prototype.get, wmSet = WM.prototype.set;
  const uids = new WM();
  let nextUid = 1;
  function uidOf(el) {
    let u = apply(wmGet, uids, [el]);
    if (u === undefined) { u = nextUid++; apply(wmSet, uids, [el, u]); }
    return u;
  }
  const dispatch = G.EventTarget.prototype.dispatchEvent;

  function find(proto, name) {
    for (let p = proto; p; p = gpo(p)) {
      const d = gopd(p, name);
      if (d) return d;
    }
    return undefined;
  }
  function getter(proto, name) { const d = find(proto, name); return d && d.get; }
  function setter(proto, name) { const d = find(proto, name); return d && d.set; }
  function method(proto, name) { const d = find(proto, name); return d && d.value; }

  const NodeP = G.Node.prototype, ElP = G.Element.prototype, HElP = G.HTMLElement.prototype;
  const DocP = G.Document.prototype;
  const g = {
    firstChild: getter(NodeP, 'firstChild'), nextSibling: getter(NodeP, 'nextSibling'),
    nodeType: getter(NodeP, 'nodeType'), nodeValue: getter(NodeP, 'nodeValue'),
    textContent: getter(NodeP, 'textContent'), isConnected: getter(NodeP, 'isConnected'),
    ownerDocument: getter(NodeP, 'ownerDocument'),
    localName: getter(ElP, 'localName'), shadowRoot: getter(ElP, 'shadowRoot'),
    namespaceURI: getter(ElP, 'namespaceURI'),
    documentElement: getter(DocP, 'documentElement'), title: getter(DocP, 'title'),
    body: getter(DocP, 'body'), readyState: getter(DocP, 'readyState'),
    contentType: getter(DocP, 'contentType'),
    URL: getter(DocP, 'URL'), activeElement: getter(DocP, 'activeElement'),
    defaultView: getter(DocP, 'defaultView'),
    isContentEditable: getter(HElP, 'isContentEditable'), innerText: getter(HElP, 'innerText'),
    tabIndex: getter(HElP, 'tabIndex'),
    inputValue: getter(G.HTMLInputElement.prototype, 'value'),
    inputChecked: getter(G.HTMLInputElement.prototype, 'checked'),
    inputIndeterminate: getter(G.HTMLInputElement.prototype, 'indeterminate'),
    imgComplete: getter(G.HTMLImageElement.prototype, 'complete'),
    inputType: getter(G.HTMLInputElement.prototype, 'type'),
    inputLabels: getter(G.HTMLInputElement.prototype, 'labels'),
    inputForm: getter(G.HTMLInputElement.prototype, 'form'),
    textareaValue: getter(G.HTMLTextAreaElement.prototype, 'value'),
    selectValue: getter(G.HTMLSelectElement.prototype, 'value'),
    inputMessage: getter(G.HTMLInputElement.prototype, 'validationMessage'),
    textareaMessage: getter(G.HTMLTextAreaElement.prototype, 'validationMessage'),
    selectMessage: getter(G.HTMLSelectElement.prototype, 'validationMessage'),
    selectLabels: getter(G.HTMLSelectElement.prototype, 'labels'),
    textareaLabels: getter(G.HTMLTextAreaElement.prototype, 'labels'),
    optionSelected: getter(G.HTMLOptionElement.prototype, 'selected'),
    optionValue: getter(G.HTMLOptionElement.prototype, 'value'),
    optionLabel: getter(G.HTMLOptionElement.prototype, 'label'),
    selectOptions: getter(G.HTMLSelectElement.prototype, 'options'),
    optionsLength: getter(G.HTMLOptionsCollection.prototype, 'length'),
    iframeDoc: getter(G.HTMLIFrameElement.prototype, 'contentDocument'),
    nodeListLength: getter(G.NodeList.prototype, 'length'),
    frameElement: getter(G.Window.prototype, 'frameElement') || getter(G, 'frameElement'),
    contentWindow: getter(G.HTMLIFrameElement.prototype, 'contentWindow'),
    // Own accessors of the window ([Replaceable]): captured before the page can shadow them.
    frameCount: getter(G, 'length'), parent: getter(G, 'parent'),
    parentNode: getter(NodeP, 'parentNode'),
    host: getter(G.ShadowRoot.prototype, 'host'),
    srActive: getter(G.ShadowRoot.prototype, 'activeElement'),
    labelControl: getter(G.HTMLLabelElement.prototype, 'control'),
    scrollX: getter(G.Window.prototype, 'scrollX') || getter(G, 'scrollX'),
    scrollY: getter(G.Window.prototype, 'scrollY') || getter(G, 'scrollY'),
    scrollTop: getter(ElP, 'scrollTop'), scrollLeft: getter(ElP, 'scrollLeft'),
    scrollHeight: getter(ElP, 'scrollHeight'), clientHeight: getter(ElP, 'clientHeight'),
    scrollWidth: getter(ElP, 'scrollWidth'), clientWidth: getter(ElP, 'clientWidth'),
    innerWidth: getter(G.Window.prototype, 'innerWidth') || getter(G, 'innerWidth'),
    innerHeight: getter(G.Window.prototype, 'innerHeight') || getter(G, 'innerHeight'),
    dpr: getter(G.Window.prototype, 'devicePixelRatio') || getter(G, 'devicePixelRatio'),
  };
  const s = {
    inputValue: setter(G.HTMLInputElement.prototype, 'value'),
    textareaValue: setter(G.HTMLTextAreaElement.prototype, 'value'),
    optionSelected: setter(G.HTMLOptionElement.prototype, 'selected'),
    textContent: setter(NodeP, 'textContent'),
    scrollLeft: setter(ElP, 'scrollLeft'), scrollTop: setter(ElP, 'scrollTop'),
  };
  const m = {
    getAttribute: method(ElP, 'getAttribute'), hasAttribute: method(ElP, 'hasAttribute'),
    getBoundingClientRect: method(ElP, 'getBoundingClientRect'),
    getClientRects: method(ElP, 'getClientRects'), matches: method(ElP, 'matches'),
    scrollIntoView: method(ElP, 'scrollIntoView'), focus: method(HElP, 'focus'),
    scrollBy: method(G.Window.prototype, 'scrollBy') || G.scrollBy,
    // SVG and MathML elements have their own focus(); HTMLElement's throws on them.
    focusSvg: method(G.SVGElement.prototype, 'focus'),
    focusMath: G.MathMLElement ? method(G.MathMLElement.prototype, 'focus') : undefined,
    getElementById: method(DocP, 'getElementById'),
    querySelectorAll: method(DocP, 'querySelectorAll'),
    assignedElements: method(G.HTMLSlotElement.prototype, 'assignedElements'),
    nodeListItem: method(G.NodeList.prototype, 'item'),
    collectionItem: method(G.HTMLCollection.prototype, 'item'),
    getComputedStyle: method(G.Window.prototype, 'getComputedStyle') || G.getComputedStyle,
    getPropertyValue: method(G.CSSStyleDeclaration.prototype, 'getPropertyValue'),
    select: method(G.HTMLInputElement.prototype, 'select'),
    docFromPoint: method(DocP, 'elementFromPoint'),
    getSelection: method(DocP, 'getSelection'), createRange: method(DocP, 'createRange'),
    rangeSetStart: method(G.Range.prototype, 'setStart'), rangeSetEnd: method(G.Range.prototype, 'setEnd'),
    rangeSelectContents: method(G.Range.prototype, 'selectNodeContents'),
    selRemoveAll: method(G.Selection.prototype, 'removeAllRanges'),
    selAddRange: method(G.Selection.prototype, 'addRange'),
    selToString: method(G.Selection.prototype, 'toString'),
    inputSetSel: method(G.HTMLInputElement.prototype, 'setSelectionRange'),
    textareaSetSel: method(G.HTMLTextAreaElement.prototype, 'setSelectionRange'),
    srFromPoint: method(G.ShadowRoot.prototype, 'elementFromPoint'),
  };
  const rectGet = {
    x: getter(G.DOMRectReadOnly.prototype, 'x'), y: getter(G.DOMRectReadOnly.prototype, 'y'),
    w: getter(G.DOMRectReadOnly.prototype, 'width'), h: getter(G.DOMRectReadOnly.prototype, 'height'),
  };
  const listLen = getter(G.DOMRectList.prototype, 'length');

  // ---- Input: counting, voiding, aiming, guarding -------------------------------------------
  //
  // Native input and the app's renderer messages reach the page on different channels, so the
  // app learns what became of input it sent from here ({"op":"inputs"}): trusted events by
  // type, where the first pointer event of an aimed action landed, and what a focus guard
  // stopped. The listener is added to this window before any page script exists, so at the
  // window's capture phase it runs before anything the page registers; same-origin frames are
  // instrumented when a walk or a hit test reaches them.
  //
  // Pointer events are counted, not mouse events: a page that cancels pointerdown suppresses
  // the compatibility mousedown and mouseup, and a click counted by those would look lost.
  const COUNTED = ['pointerdown', 'pointerup', 'pointermove', 'keydown', 'keyup', 'keypress', 'wheel'];
  // Listened to as well, so that voiding and guarding stop everything an action dispatches.
  const STOPPED = ['mousedown', 'mouseup', 'mousemove', 'mouseover', 'mouseout', 'mouseenter',
    'mouseleave', 'pointerover', 'pointerout', 'pointerenter', 'pointerleave', 'pointercancel',
    'click', 'dblclick', 'auxclick', 'contextmenu'];
  const KEY = obj0(), POINTER_AIM = obj0();
  KEY.keydown = true; KEY.keyup = true; KEY.keypress = true;
  POINTER_AIM.pointerdown = true; POINTER_AIM.pointermove = true; POINTER_AIM.wheel = true;
  const LATE = obj0();
  LATE.pointerup = true; LATE.click = true; LATE.dblclick = true; LATE.auxclick = true; LATE.contextmenu = true;
  const inputCounts = obj0();
  for (let i = 0; i < COUNTED.length; i++) inputCounts[COUNTED[i]] = 0;
  // A new token per document (per walker instance): counts restart with a new document, and
  // the app must not compare one document's counts with another's.
  const docToken = 1 + G.Math.floor(G.Math.random() * 4503599627370495);
  const evProto = G.Event.prototype;
  const isTrusted = find(evProto, 'isTrusted');
  const evType = getter(evProto, 'type'), evStamp = getter(evProto, 'timeStamp');
  const evPath = method(evProto, 'composedPath'), evTarget = getter(evProto, 'target');
  const evStop = method(evProto, 'stopImmediatePropagation'), evPrevent = method(evProto, 'preventDefault');
  const listen = G.EventTarget.prototype.addEventListener;
  const wsHas = G.WeakSet.prototype.has, wsAdd = G.WeakSet.prototype.add;
  const instrumented = new G.WeakSet();
  // The constructor itself, for sets made after start-up: the page can replace `WeakSet`.
  const WeakSetCtor = G.WeakSet;
  // How long a void or a guard stays in force. A guard is lifted when typing ends; its span
  // bounds what a crashed caller can leave behind. A void stops only events created before it
  // was set, so it harms nothing later and stays in force as long as such an event could
  // still be queued behind a busy page: the agent was told that input did not happen, and it
  // must not happen late.
  const VOID_SPAN = 600000, GUARD_SPAN = 30000;
  // Trusted input created at or before voidAt is stopped: the app gave up on input it sent and
  // told the agent nothing happened, so a late arrival must not happen either.
  let voidAt = -1, voidSet = -1, voided = 0;
  // The element the agent's next pointer action aims at, and where its first event landed.
  let aimEl = null, aimRemote = false, landed = null, landedDown = false, landedDesc = null;
  // Whether the press itself went to the aim (its mousedown and focus handlers ran there), for
  // a click whose release the page sent elsewhere by covering or moving the target mid-click.
  let pressInside = false;
  // A wheel landed: the moves after it are the browser's own (a scroll moves the content under
  // a still pointer, and Chromium sends a move to update the hover), not where it went.
  let landedWheel = false;
  // Whether what `landed` names was the aim or inside it when the event arrived: worked out
  // then, because a page often re-renders what was clicked (a button replacing its label, an
  // SVG redrawn), and the node the event went to is detached by the time anyone asks.
  let landedInside = false;
  // Keys are allowed only while focus stays within guardEl; once it leaves, every later key
  // is stopped until the guard is lifted, even if focus comes back.
  let guardEl = null, guardSet = -1, guardTripped = false, guardWent = null, typed = 0, blocked = 0;
  // The element the last focus or clear op focused: typing that follows is meant for it.
  let lastFocused = null;

  function obj0() { return create(null); }
  function trusted(e) {
    // isTrusted is an own accessor on each event in Blink, not on the prototype.
    const d = gopd(e, 'isTrusted') || isTrusted;
    return !!d && !!apply(d.get, e, []);
  }
  function stop(e) { apply(evStop, e, []); apply(evPrevent, e, []); }
  function onInput(e) {
    if (!trusted(e)) return;
    const t = apply(evType, e, []);
    if (voidAt >= 0 && now() - voidSet < VOID_SPAN && apply(evStamp, e, []) <= voidAt) {
      stop(e);
      voided++;
      return;
    }
    if (KEY[t] === true && guardEl !== null && now() - guardSet < GUARD_SPAN) {
      // Checked as a key goes down or types: the keyup of a key that went in goes in too.
      if (!guardTripped && t !== 'keyup') {
        const a = deepActive().el;
        if (!flatContains(guardEl, a)) {
          // A page that re-renders a field on every keystroke replaces it with an identical
          // one and focuses that: the same field to the user typing, so the guard follows it.
          if (a && !apply(g.isConnected, guardEl, []) && sameField(guardEl, a)) guardEl = a;
          else { guardTripped = true; guardWent = describe(a); }
        }
      }
      if (guardTripped) {
        stop(e);
        if (t === 'keypress') blocked++;
      } else if (t === 'keypress') typed++;
    }
    if (inputCounts[t] !== undefined) inputCounts[t]++;
    if (t === 'pointerdown' || t === 'keydown') lastFocused = null;
    if (aimEl !== null) {
      // Where the action went: its press wins over a move before it; and a release, click or
      // context menu that goes elsewhere (the target moved between press and release, so the
      // click fires on what they share) wins over both.
      const path = POINTER_AIM[t] === true || LATE[t] === true ? apply(evPath, e, []) : null;
      const at = path && path.length ? path[0] : null;
      // The last move before any press: the pointer's approach (a move where it already was)
      // comes before the move onto the target.
      if (t === 'wheel' && !landedDown && !landedWheel) {
        land(at, false);
        landedWheel = true;
        // A wheel scrolls the box that holds the aim, and the content under the pointer may
        // have scrolled away before the event is dispatched (the compositor scrolls first and
        // hit-tests the event after): anything inside that box is where it was meant to go.
        if (!landedInside) {
          const sc = scrollerOf(aimEl);
          landedInside = sc === null || flatContains(sc, at);
        }
      }
      else if (t === 'pointermove' && !landedDown && !landedWheel) land(at, false);
      else if (t === 'pointerdown' && !landedDown) { land(at, true); pressInside = landedInside; }
      else if (LATE[t] === true && (landed === null || landedInside) && !reaches(aimEl, at)) land(at, landedDown);
    }
  }
  function land(at, down) {
    landed = at;
    landedDown = down;
    landedDesc = null;
    landedInside = reaches(aimEl, at);
  }
  function instrument(win) {
    if (!win || apply(wsHas, instrumented, [win])) return;
    apply(wsAdd, instrumented, [win]);
    attach(win);
    if (win !== G) {
      // Kept weakly (a removed frame's window must go), and only the latest few.
      if (frameWins.length >= 50) {
        for (let i = 1; i < frameWins.length; i++) frameWins[i - 1] = frameWins[i];
        frameWins.length = frameWins.length - 1;
      }
      frameWins[frameWins.length] = new WeakRefCtor(win);
    }
  }
  // Same-origin frames the counters were added to. A frame's WindowProxy outlives its
  // documents, so one that loaded a new document (which has none of our listeners) or was
  // rewritten in place is found by the probe below too.
  const WeakRefCtor = G.WeakRef, wrDeref = G.WeakRef.prototype.deref;
  const frameWins = arr();
  // document.open() erases every listener of its window, the counters included: input would
  // keep arriving while the counts stood still, and voids would stop nothing. A private event
  // type listened to with them tells whether they are still attached.
  const PROBE = 'aperture-probe-' + docToken;
  let probed = false;
  function onProbe() { probed = true; }
  // Whether the counters of this window or of a same-origin frame had been erased; they are
  // attached again where they were. (Adding a listener that is still there changes nothing.)
  function deafened() {
    let deaf = !heard(G);
    for (let i = 0; i < frameWins.length; i++) {
      const w = apply(wrDeref, frameWins[i], []);
      if (w && !heard(w)) deaf = true;
    }
    return deaf;
  }
  function heard(win) {
    probed = false;
    // A frame that went to another origin is not ours to count: its own walker does.
    try { apply(dispatch, win, [new EventCtor(PROBE)]); } catch (e) { return true; }
    if (probed) return true;
    attach(win);
    return false;
  }
  function attach(win) {
    const opts = obj0();
    opts.capture = true;
    apply(listen, win, [PROBE, onProbe, opts]);
    for (let i = 0; i < COUNTED.length; i++) {
      // A non-passive wheel listener on the window would make every scroll wait for the
      // main thread; wheel input is counted but never stopped.
      opts.passive = COUNTED[i] === 'wheel';
      apply(listen, win, [COUNTED[i], onInput, opts]);
    }
    opts.passive = false;
    for (let i = 0; i < STOPPED.length; i++) apply(listen, win, [STOPPED[i], onInput, opts]);
    // A same-origin frame's media is its own walker's to report.
    if (win === G) for (let i = 0; i < MEDIA_EVENTS.length; i++) apply(listen, win, [MEDIA_EVENTS[i], onMedia, opts]);
  }

  // Media that sounds, told to the browser as it starts and stops (the tab's speaker mark, and
  // "playing sound" in the agent's tab list) through the app's `notify` (see op 'hook'). Media
  // events do not bubble but pass the window in the capture phase. An element the page removes
  // while it plays is paused with no event that reaches the window, so while anything sounds
  // the elements are looked at again every two seconds.
  const MEDIA_EVENTS = ['play', 'playing', 'pause', 'ended', 'volumechange', 'emptied'];
  const MediaP = G.HTMLMediaElement.prototype;
  const med = {
    paused: getter(MediaP, 'paused'), ended: getter(MediaP, 'ended'),
    muted: getter(MediaP, 'muted'), volume: getter(MediaP, 'volume'),
    duration: getter(MediaP, 'duration'), time: getter(MediaP, 'currentTime'),
  };
  const SetCtor = G.Set, setAdd = G.Set.prototype.add, setDel = G.Set.prototype.delete;
  const setForEach = G.Set.prototype.forEach;
  const every = G.setInterval, unevery = G.clearInterval;
  const sounding = new SetCtor();
  let notify = null, audible = false, recheck = null;
  // Replaces `holder[name]`, a function, by a Proxy of itself with `handler`'s traps (calls,
  // `new`, name, length and toString behave as the original's). False when there is none to
  // replace: absent, not a function, or fixed.
  function proxyInPlace(holder, name, handler) {
    const d = gopd(holder, name);
    if (!d || typeof d.value !== 'function' || !d.configurable) return false;
    const nd = obj();
    nd.value = new G.Proxy(d.value, handler); nd.writable = d.writable; nd.enumerable = d.enumerable; nd.configurable = d.configurable;
    O.defineProperty(holder, name, nd);
    return true;
  }
  // Replaces the window's constructor `name` so that `each` is handed every object it makes.
  function onEachMade(name, each) {
    const construct = R.construct, h = obj();
    h.construct = function (target, args, newTarget) {
      const made = construct(target, args, newTarget);
      try { each(made); } catch (x) { /* not what it claimed to be */ }
      return made;
    };
    return proxyInPlace(G, name, h);
  }

  // Web Audio sounds while its context runs (a game, a synthesiser, a call's ringtone): the
  // AudioContext constructor is replaced by a Proxy of itself that follows each context's
  // state. A context runs only once the page had a click (Chromium's autoplay rule), and a
  // running one that plays silence is counted as sounding: Chromium measures the output,
  // which no page can read.
  const running = new SetCtor(), setSize = getter(G.Set.prototype, 'size');
  const ctxState = G.BaseAudioContext ? getter(G.BaseAudioContext.prototype, 'state') : undefined;
  function onCtxState(e) {
    const ctx = apply(evTarget, e, []);
    if (safe(ctxState, ctx, 'closed') === 'running') apply(setAdd, running, [ctx]);
    else apply(setDel, running, [ctx]);
    mediaState();
  }
  let audioHooked = false;
  function hookAudio() {
    if (audioHooked || !ctxState) return;
    audioHooked = onEachMade('AudioContext', function (ctx) {
      apply(listen, ctx, ['statechange', onCtxState]);
      if (safe(ctxState, ctx, 'closed') === 'running') { apply(setAdd, running, [ctx]); mediaState(); }
    });
  }
  function onMedia(e) {
    if (!trusted(e)) return;
    const path = apply(evPath, e, []);
    const el = path && path.length ? path[0] : null;
    // Only a media element has these getters: anything else throws, and is not ours.
    try { apply(med.paused, el, []); } catch (x) { return; }
    apply(setAdd, sounding, [el]);
    mediaState();
  }
  function mediaState() {
    let now = apply(setSize, running, []) > 0;
    apply(setForEach, sounding, [function (el) {
      if (safe(med.paused, el, true) || safe(med.ended, el, true)) apply(setDel, sounding, [el]);
      else if (!safe(med.muted, el, true) && safe(med.volume, el, 0) > 0) now = true;
    }]);
    if (now && recheck === null) recheck = apply(every, G, [mediaState, 2000]);
    if (!now && recheck !== null) { apply(unevery, G, [recheck]); recheck = null; }
    if (now === audible) return;
    audible = now;
    if (notify !== null) {
      const o = obj0();
      o.ev = 'media';
      o.audible = now;
      try { notify(stringify(o)); } catch (x) { /* the browser is going away */ }
    }
  }
  instrument(G);

  // A click on one of the page's notifications (on the desktop, where the page cannot see
  // it) is told to the browser, which brings the tab to the front. The Notification
  // constructor is replaced by a Proxy of itself that listens to each notification it makes.
  // Blink adds secure-context interfaces such as Notification after the context is made, so
  // this is tried again once the document has loaded.
  let notificationHooked = false;
  function onNotificationClick(e) {
    if (notify === null || !trusted(e)) return;
    const o = obj0();
    o.ev = 'notification-click';
    try { notify(stringify(o)); } catch (x) { /* the browser is going away */ }
  }
  function hookNotification() {
    if (notificationHooked) return;
    notificationHooked = onEachMade('Notification', function (n) { apply(listen, n, ['click', onNotificationClick]); });
  }
  // The constructors hooked as the context is made, and again once the document has loaded
  // for those Blink had not added yet.
  function hookMade() { hookNotification(); hookAudio(); }
  hookMade();
  {
    const opts = obj();
    opts.capture = true; opts.once = true;
    apply(listen, G, ['DOMContentLoaded', hookMade, opts]);
  }

  // A pop-up Chromium stopped (window.open without a click) is told to the browser, whose
  // window offers to open it: Chromium's blocker says nothing to the embedder, and the page
  // only gets null. window.open is replaced by a Proxy of itself (calls, name, length and
  // toString behave as the original's). A null from a `noopener` open is no block.
  {
    const URLCtor = G.URL, hrefOf = getter(G.URL.prototype, 'href'), baseOf = getter(NodeP, 'baseURI');
    const h = obj();
    h.apply = function (target, self, args) {
      const w = apply(target, self, args);
      if (w === null && notify !== null) {
        try {
          const feat = args.length > 2 && args[2] != null ? lower('' + args[2]) : '';
          if (apply(strIndexOf, feat, ['noopener']) < 0 && apply(strIndexOf, feat, ['noreferrer']) < 0) {
            const o = obj0();
            o.ev = 'popup-blocked';
            const u = args.length > 0 && args[0] != null ? '' + args[0] : '';
            o.url = u === '' ? 'about:blank' : apply(hrefOf, new URLCtor(u, apply(baseOf, G.document, [])), []);
            notify(stringify(o));
          }
        } catch (x) { /* an address that does not parse opens nothing either */ }
      }
      return w;
    };
    proxyInPlace(G, 'open', h);
  }

  const HTML_NS = 'http://www.w3.org/1999/xhtml', SVG_NS = 'http://www.w3.org/2000/svg';
  const MATH_NS = 'http://www.w3.org/1998/Math/MathML';
  const MASK = '\u2022\u2022\u2022\u2022';
  const TEXT_CAP = 600, NAME_CAP = 160, DEFAULT_NODE_CAP = 25000;

  function obj() { return create(null); }
  // HTMLElement getters throw "Illegal invocation" on SVG/MathML elements.
  function safe(fn, el, dflt) { try { return fn ? apply(fn, el, []) : dflt; } catch (e) { return dflt; } }
  function safeSet(fn, el, v) { try { if (fn) apply(fn, el, [v]); } catch (e) { /* not a scroller after all */ } }
  function arr() { const a = []; setProto(a, null); return a; }
  function attr(el, n) { return apply(m.getAttribute, el, [n]); }
  // aria-current's tokens Chromium tells apart; any other true value is plain "current".
  const CURRENT_TOKEN = obj();
  for (const w of ['page', 'step', 'location', 'date', 'time']) CURRENT_TOKEN[w] = true;
  // aria-haspopup's kinds besides a menu (`true` is a menu too).
  const POPUP_KIND = obj();
  for (const t of ['listbox', 'tree', 'grid', 'dialog']) POPUP_KIND[t] = true;
  // Class words a page marks "this one" of a row with (the page of a pager, the open tab of a
  // nav bar), which a person sees from its styling.
  const CURRENT_CLASS = obj();
  for (const w of ['active', 'current', 'is-active', 'is-current', 'current-page']) CURRENT_CLASS[w] = true;
  function classSaysCurrent(el) {
    const c = attr(el, 'class');
    if (!c) return false;
    const ws = apply(strSplit, c, [' ']);
    for (let i = 0; i < ws.length; i++) if (CURRENT_CLASS[ws[i]] === true) return true;
    return false;
  }
  // Marked apart from its row: a sibling of the same tag goes without the mark.
  function oneOfItsRow(el, tag) {
    const p = apply(g.parentNode, el, []);
    if (p === null || apply(g.nodeType, p, []) !== 1) return false;
    for (let c = apply(firstElChild, p, []); c !== null; c = apply(nextElSibling, c, [])) {
      if (c !== el && apply(g.localName, c, []) === tag && !classSaysCurrent(c)) return true;
    }
    return false;
  }
  function lower(x) { return apply(strToLower, x, []); }
  // An init dictionary for an Event: without a prototype, so reading its optional members
  // (cancelable, composed) never reaches a getter the page planted on Object.prototype.
  function bubbling() { const d = obj(); d.bubbles = true; return d; }
  // Input types a person sets through a picker or a slider, not by typing text: the value op
  // sets these, as typing their value's characters does not.
  const PICKED = obj0();
  for (const t of ['date', 'time', 'datetime-local', 'month', 'week', 'color', 'range']) PICKED[t] = true;
  // Whether s is a valid floating-point number as HTML defines it, the only numbers a range
  // input keeps: -?(D+(.D+)?|.D+)([eE][-+]?D+)? with D an ASCII digit.
  function htmlFloat(s) {
    const n = s.length;
    let i = 0;
    const digits = () => {
      const from = i;
      while (i < n) { const c = apply(strCharCodeAt, s, [i]); if (c < 48 || c > 57) break; i++; }
      return i > from;
    };
    if (i < n && s[i] === '-') i++;
    const whole = digits();
    if (i < n && s[i] === '.') { i++; if (!digits()) return false; } else if (!whole) return false;
    if (i < n && (s[i] === 'e' || s[i] === 'E')) {
      i++;
      if (i < n && (s[i] === '-' || s[i] === '+')) i++;
      if (!digits()) return false;
    }
    return i === n;
  }
  function fire(el, type) { apply(dispatch, el, [new EventCtor(type, bubbling())]); }

  // The local names whose handling below calls an HTML interface's own getters
  // (HTMLInputElement's value, HTMLSelectElement's options, HTMLIFrameElement's
  // contentDocument...). Those getters throw "Illegal invocation" on anything else, and an
  // element in another namespace can carry the same local name (`<svg><input/></svg>` parses
  // to an SVG-namespace element named "input"). kindOf() gives such an element no kind, so it
  // is walked as the unknown element it is.
  const HTML_IFACE = obj();
  for (const t of ['input', 'select', 'textarea', 'option', 'iframe', 'slot']) HTML_IFACE[t] = true;
  function kindOf(el, tag) {
    return HTML_IFACE[tag] === true && apply(g.namespaceURI, el, []) !== HTML_NS ? '' : tag;
  }
  function focusEl(el) {
    const ns = apply(g.namespaceURI, el, []);
    safe(ns === SVG_NS ? m.focusSvg : ns === MATH_NS ? m.focusMath : m.focus, el, null);
  }

  // Collapse runs of whitespace and trim, by hand: regexes consult RegExp.prototype.exec,
  // which the page may have replaced.
  function collapse(str, cap) {
    if (str == null) return '';
    const n = str.length, out = arr();
    let pendingSpace = false, len = 0;
    for (let i = 0; i < n && len < cap; i++) {
      const c = apply(strCharCodeAt, str, [i]);
      if (isSpace(c)) {
        pendingSpace = len > 0;
        continue;
      }
      if (pendingSpace) { out[out.length] = ' '; len++; pendingSpace = false; }
      out[out.length] = fromCharCode(c); len++;
    }
    return apply(arrJoin, out, ['']);
  }

  const SKIP = obj();
  for (const t of ['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title', 'base']) SKIP[t] = true;
  const IMPLICIT = obj();
  const roleTable = {
    a: 'link', area: 'link', article: 'article', aside: 'complementary', button: 'button',
    datalist: 'listbox', details: 'group', dialog: 'dialog', fieldset: 'group', figure: 'figure',
    footer: 'contentinfo', form: 'form', h1: 'heading', h2: 'heading', h3: 'heading',
    h4: 'heading', h5: 'heading', h6: 'heading', header: 'banner', hr: 'separator', img: 'img',
    li: 'listitem', main: 'main', math: 'math', menu: 'list', meter: 'meter', nav: 'navigation',
    ol: 'list', optgroup: 'group', option: 'option', output: 'status', p: 'paragraph',
    progress: 'progressbar', search: 'search', section: 'region', summary: 'button',
    table: 'table', tbody: 'rowgroup', td: 'cell', textarea: 'textbox', tfoot: 'rowgroup',
    th: 'columnheader', thead: 'rowgroup', tr: 'row', ul: 'list', label: 'label',
    blockquote: 'blockquote', code: 'code', pre: 'code', caption: 'caption', dd: 'definition', dt: 'term',
  };
  for (const k of O.keys(roleTable)) IMPLICIT[k] = roleTable[k];
  const INPUT_ROLE = obj();
  const inputRoles = {
    button: 'button', submit: 'button', reset: 'button', image: 'button', checkbox: 'checkbox',
    radio: 'radio', range: 'slider', number: 'spinbutton', search: 'searchbox', email: 'textbox',
    tel: 'textbox', text: 'textbox', url: 'textbox', password: 'textbox', date: 'textbox',
    'datetime-local': 'textbox', month: 'textbox', time: 'textbox', week: 'textbox', color: 'button', file: 'button',
  };
  for (const k of O.keys(inputRoles)) INPUT_ROLE[k] = inputRoles[k];
  const WIDGET = obj();
  for (const r of ['button', 'link', 'checkbox', 'radio', 'tab', 'menuitem', 'menuitemcheckbox',
    'menuitemradio', 'option', 'switch', 'combobox', 'textbox', 'searchbox', 'slider',
    'spinbutton', 'treeitem', 'gridcell', 'listbox', 'scrollbar', 'audio', 'video']) WIDGET[r] = true;
  // Roles named from their content (ARIA 1.2, as Chromium applies it). A list item or a label
  // is not: its words are its text and its children's, said once.
  const NAME_FROM_CONTENT = obj();
  for (const r of ['button', 'link', 'heading', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio',
    'option', 'switch', 'checkbox', 'radio', 'treeitem', 'cell', 'columnheader', 'rowheader',
    'gridcell', 'row', 'tooltip']) NAME_FROM_CONTENT[r] = true;
  // Roles of content, not of controls or containers, that an element made clickable may carry
  // (a list item with an onclick): such an element is named from its content as a control is.
  const ITEM_ROLE = obj();
  for (const r of ['listitem', 'paragraph', 'term', 'definition', 'figure', 'caption', 'label']) ITEM_ROLE[r] = true;
  const SEMANTIC = obj();
  for (const t of ['form', 'table', 'tr', 'td', 'th', 'ul', 'ol', 'li', 'nav', 'main', 'header',
    'footer', 'aside', 'section', 'article', 'dialog', 'fieldset', 'label', 'iframe', 'h1', 'h2',
    'h3', 'h4', 'h5', 'h6', 'img', 'select', 'option', 'details', 'summary', 'figure', 'legend',
    'p', 'pre', 'blockquote', 'dl', 'dt', 'dd', 'caption', 'svg', 'canvas', 'video', 'audio']) SEMANTIC[t] = true;

  // Walk ids start at a random point in each context: a new document gets a new walker, and
  // counting from 1 again would let an element op aimed at the old document's walk N address
  // the new document's walk N.
  let walkSeq = G.Math.floor(G.Math.random() * 1048576) * 1048576;
  let lastWalk = { id: 0, els: arr(), frames: arr() };

  function rectOf(el) {
    const r = apply(m.getBoundingClientRect, el, []);
    return { x: apply(rectGet.x, r, []), y: apply(rectGet.y, r, []), w: apply(rectGet.w, r, []), h: apply(rectGet.h, r, []) };
  }
  function round1(v) { return mathRound(v * 10) / 10; }

  // What a drawing looks like, for the controls only their looks tell apart: a nameless
  // colour swatch, and the shapes of an SVG drawing one clicks (a puzzle's "small red circle"). The walker reports the shape's kind and its paint as
  // numbers; the engine turns them into words of its own, so a page cannot write them.
  const SHAPE = obj();
  for (const t of ['circle', 'ellipse', 'rect', 'polygon', 'polyline', 'line', 'path', 'text']) SHAPE[t] = true;
  function svgShape(el, tag) { return SHAPE[tag] === true && apply(g.namespaceURI, el, []) === SVG_NS; }
  // `rgb(1, 2, 3)` / `rgba(1, 2, 3, 0.5)` as computed style writes them, by hand (no regex:
  // the page may have replaced RegExp.prototype.exec); anything else (`none`, `url(#g)`, a
  // transparent colour) is null.
  function rgbOf(str) {
    if (!str || apply(strIndexOf, str, ['rgb']) !== 0) return null;
    const nums = arr();
    let cur = '', inNum = false;
    for (let i = apply(strIndexOf, str, ['(']) + 1; i > 0 && i < str.length; i++) {
      const ch = apply(strCharCodeAt, str, [i]);
      if (ch >= 48 && ch <= 57 || ch === 46) { cur += fromCharCode(ch); inNum = true; }
      else if (inNum) { nums[nums.length] = +cur; cur = ''; inNum = false; }
    }
    if (nums.length < 3 || nums.length === 4 && nums[3] === 0) return null;
    const out = arr();
    out[0] = mathRound(nums[0]); out[1] = mathRound(nums[1]); out[2] = mathRound(nums[2]);
    return out;
  }
  function countPoints(str) {
    let n = 0, inNum = false;
    for (let i = 0; str && i < str.length; i++) {
      const ch = apply(strCharCodeAt, str, [i]);
      const digit = ch >= 48 && ch <= 57 || ch === 46 || ch === 45 || ch === 101;
      if (digit && !inNum) n++;
      inNum = digit;
    }
    return n >> 1;
  }
  // The colour of a box's top border, if it has one that is drawn.
  function borderOf(cs) {
    const st = apply(m.getPropertyValue, cs, ['border-top-style']);
    if (st === 'none' || st === 'hidden' || !(px(cs, 'border-top-width') > 0)) return null;
    const rgb = rgbOf(apply(m.getPropertyValue, cs, ['border-top-color']));
    if (rgb === null) return null;
    const p = obj();
    p.shape = 'border';
    p.rgb = rgb;
    return p;
  }
  function paintOf(el, tag, cs, r) {
    // Smaller than this on a side, nobody can make out its colour or shape (a pie menu's
    // slices while it is still closed).
    if (!(r.w >= 3 && r.h >= 3)) return null;
    let rgb = null, shape = 'box';
    if (svgShape(el, tag)) {
      shape = tag;
      rgb = rgbOf(apply(m.getPropertyValue, cs, ['fill'])) || rgbOf(apply(m.getPropertyValue, cs, ['stroke']));
    } else if (apply(m.getPropertyValue, cs, ['background-image']) === 'none') {
      rgb = rgbOf(apply(m.getPropertyValue, cs, ['background-color']));
      // Chromium's own button face: a button the page did not colour.
      if (rgb !== null && rgb[0] === 239 && rgb[1] === 239 && rgb[2] === 239) rgb = null;
    }
    if (rgb === null) return null;
    const p = obj();
    p.shape = shape;
    p.rgb = rgb;
    if (tag === 'polygon' || tag === 'polyline') p.points = countPoints(attr(el, 'points'));
    return p;
  }

  // Frames of other sites live in other renderers, whose walkers answer for them; the app
  // matches each such frame's walk to its <iframe> by the frame's index among its parent's
  // child frames (`window.frames`, tree order), which both sides can compute: the parent by
  // comparing each frame's WindowProxy with the iframe's contentWindow, the child by finding
  // itself among its parent's frames (both allowed across origins).
  function slotOf(el, win) {
    const cw = safe(g.contentWindow, el, null);
    if (!cw) return -1;
    const n = safe(g.frameCount, win, 0);
    for (let i = 0; i < n && i < 1000; i++) if (win[i] === cw) return i;
    return -1;
  }
  // This window's index among its parent's frames (-1 for a top window).
  function ownSlot() {
    const p = safe(g.parent, G, null);
    if (!p || p === G) return -1;
    try {
      const n = p.length;
      for (let i = 0; i < n && i < 1000; i++) if (p[i] === G) return i;
    } catch (e) { /* a parent gone mid-walk */ }
    return -1;
  }
  function px(cs, prop) { return +apply(strSlice, apply(m.getPropertyValue, cs, [prop]), [0, -2]) || 0; }

  // A player's state as its controls show it: playing or paused, where a paused one stands,
  // how long it is, muted. A playing one's position is left out: it changes every second.
  function mediaClock(s) {
    s = s < 0 || s !== s ? 0 : s;
    const h = (s / 3600) | 0, mi = ((s % 3600) / 60) | 0, se = (s % 60) | 0;
    const two = (v) => (v < 10 ? '0' : '') + v;
    return h > 0 ? h + ':' + two(mi) + ':' + two(se) : mi + ':' + two(se);
  }
  function playerState(el) {
    const d = apply(med.duration, el, []);
    const long = d > 0 && d !== Infinity ? mediaClock(d) : d === Infinity ? 'live' : '';
    let s;
    if (apply(med.ended, el, [])) s = 'ended' + (long ? ' (' + long + ')' : '');
    else if (!apply(med.paused, el, [])) s = 'playing' + (long ? ' (' + long + ')' : '');
    else s = 'paused at ' + mediaClock(apply(med.time, el, [])) + (long ? ' of ' + long : '');
    if (apply(med.muted, el, []) || apply(med.volume, el, []) === 0) s += ', muted';
    return s;
  }

  function roleOf(el, tag) {
    const explicit = attr(el, 'role');
    if (explicit) {
      const sp = apply(strIndexOf, explicit, [' ']);
      return lower(sp > 0 ? apply(strSlice, explicit, [0, sp]) : explicit);
    }
    if (tag === 'input') {
      const t = lower(apply(g.inputType, el, []) || 'text');
      return t === 'hidden' ? null : (INPUT_ROLE[t] || 'textbox');
    }
    if (tag === 'select') {
      return (apply(m.hasAttribute, el, ['multiple']) || (+attr(el, 'size') > 1)) ? 'listbox' : 'combobox';
    }
    if (tag === 'a' || tag === 'area') return apply(m.hasAttribute, el, ['href']) ? 'link' : null;
    if (tag === 'section' || tag === 'form') {
      return (attr(el, 'aria-label') || attr(el, 'aria-labelledby')) ? IMPLICIT[tag] : (tag === 'form' ? 'form' : null);
    }
    if (tag === 'img') return attr(el, 'alt') === '' ? 'presentation' : 'img';
    // An <audio> or <video> with the browser's controls is a player a person works (play,
    // pause, seek, mute); without them it is the page's picture or nothing.
    if (tag === 'audio' || tag === 'video') return apply(m.hasAttribute, el, ['controls']) ? tag : null;
    return IMPLICIT[tag] || null;
  }

  // ---- Names: accessible names as Chromium's accessibility tree computes them ---------------
  //
  // Through the flat tree (a host's shadow content, a slot's assigned nodes), with a space
  // around every block-level element (a list item's words do not run into the next one's),
  // skipping what the accessibility tree skips (display:none, visibility:hidden, aria-hidden)
  // except where aria-labelledby points at it, and taking an image's alt, an SVG's <title>, a
  // control's value and a `title` where the content has nothing.
  const getRootNode = method(NodeP, 'getRootNode');
  const fragById = method(G.DocumentFragment.prototype, 'getElementById');
  const assignedNodes = method(G.HTMLSlotElement.prototype, 'assignedNodes');
  const firstElChild = getter(ElP, 'firstElementChild'), nextElSibling = getter(ElP, 'nextElementSibling');
  const selIndex = getter(G.HTMLSelectElement.prototype, 'selectedIndex');
  function flatKids(n) {
    const out = arr();
    if (apply(g.nodeType, n, []) === 1) {
      const sr = safe(g.shadowRoot, n, null);
      if (sr) n = sr;
      else if (kindOf(n, apply(g.localName, n, [])) === 'slot') {
        const flat = obj(); flat.flatten = true;
        const as = apply(assignedNodes, n, [flat]);
        if (as.length) { for (let i = 0; i < as.length; i++) out[out.length] = as[i]; return out; }
      }
    }
    for (let c = apply(g.firstChild, n, []); c; c = apply(g.nextSibling, c, [])) out[out.length] = c;
    return out;
  }
  function byId(el, id) {
    const root = apply(getRootNode, el, []);
    if (apply(g.nodeType, root, []) === 11) return apply(fragById, root, [id]);
    return apply(m.getElementById, root, [id]);
  }
  // White space as HTML collapses it (space, tab, line feed, carriage return, form feed)
  // and the no-break space, by character code.
  function isSpace(c) { return c === 32 || c === 9 || c === 10 || c === 13 || c === 12 || c === 160; }
  function styleOf(el) {
    const doc = apply(g.ownerDocument, el, []);
    const view = (doc && apply(g.defaultView, doc, [])) || G;
    return apply(m.getComputedStyle, view, [el]);
  }
  // Text drawn at size zero (a face-down card's value, whitespace between inline-blocks) is
  // there for the accessibility tree but not for a person's eyes, so it names nothing here.
  function zeroFont(cs) { return apply(m.getPropertyValue, cs, ['font-size']) === '0px'; }
  // Whether any words under element `n` are drawn at a size above zero (bounded: a huge
  // subtree is taken to have some).
  function sizedText(n, seen, depth) {
    if (depth > 40 || ++seen.n > 2000) return true;
    for (let c = apply(g.firstChild, n, []); c; c = apply(g.nextSibling, c, [])) {
      const nt = apply(g.nodeType, c, []);
      if (nt === 3) {
        if (collapse(apply(g.nodeValue, c, []) || '', 8) && !zeroFont(styleOf(n))) return true;
      } else if (nt === 1 && sizedText(c, seen, depth + 1)) return true;
    }
    return false;
  }
  // Hidden from the accessibility tree: not rendered, invisible, or aria-hidden.
  function axHidden(el, cs) {
    if (attr(el, 'aria-hidden') === 'true') return true;
    const d = apply(m.getPropertyValue, cs, ['display']);
    if (d === 'none') return true;
    const v = apply(m.getPropertyValue, cs, ['visibility']);
    return v === 'hidden' || v === 'collapse';
  }
  // Whether Chromium puts a space around an element's words in a name: around everything but
  // plain inline content; an image, SVG or form control is a box of its own even when laid out
  // inline, and so is an inline-block ("Buy" + <img alt="now"> reads "Buy now").
  const REPLACED = obj();
  for (const t of ['img', 'svg', 'input', 'button', 'select', 'textarea', 'video', 'audio', 'canvas', 'iframe', 'object', 'embed', 'meter', 'progress']) REPLACED[t] = true;
  function isBlock(cs, ln) {
    const d = apply(m.getPropertyValue, cs, ['display']);
    if (d === 'contents') return false;
    return d !== 'inline' || REPLACED[ln] === true;
  }
  // Roles whose content Chromium's accessibility tree leaves out of a name computed from an
  // ancestor's content (measured on CEF 131: a link holding any of these is named by the rest
  // of its words); an element of one of them contributes only its own aria-label or title.
  // A native table's parts and <details> are read (Chromium takes a table inside a link for
  // layout), and so is a <footer>, which Chromium does not make a landmark there; an explicit
  // role="contentinfo" is not.
  const NO_CONTENT_IN_NAME = obj();
  for (const r of ['blockquote', 'main', 'navigation', 'dialog', 'alertdialog', 'banner', 'search',
    'toolbar', 'tablist', 'listbox', 'menu', 'menubar', 'radiogroup', 'tree', 'treegrid', 'grid',
    'table', 'row', 'rowgroup', 'img', 'figure', 'article', 'note', 'status', 'alert', 'log',
    'tabpanel', 'document', 'application', 'complementary', 'feed', 'term', 'progressbar',
    'separator', 'marquee', 'timer', 'group']) NO_CONTENT_IN_NAME[r] = true;
  const NATIVE_PART = obj();
  for (const t of ['table', 'thead', 'tbody', 'tfoot', 'tr', 'details', 'footer']) NATIVE_PART[t] = true;
  function skipsContentInName(n, tag, role) {
    if (role === null) return false;
    if (NATIVE_PART[tag] === true && !attr(n, 'role')) return false;
    return NO_CONTENT_IN_NAME[role] === true || (role === 'contentinfo' && !!attr(n, 'role'));
  }
  // A name-building context: the parts so far and their length, and the elements already on
  // the path (aria-labelledby may point in circles).
  function nameCtx() { const c = obj(); c.parts = arr(); c.len = 0; c.sprite = ''; return c; }
  // `len` counts what is not white space: the indentation between a link's elements (a saved
  // page's runs of spaces) must not use up the budget before its words are reached, and an
  // element with only white space inside has said nothing (its title names it).
  function put(c, s) {
    if (!s) return;
    c.parts[c.parts.length] = s;
    for (let i = 0; i < s.length && c.len <= NAME_CAP * 2; i++) {
      const ch = apply(strCharCodeAt, s, [i]);
      if (ch !== 32 && ch !== 9 && ch !== 10 && ch !== 13 && ch !== 12 && ch !== 160) c.len++;
    }
  }
  const RANGE_ROLE = obj();
  for (const r of ['slider', 'spinbutton', 'progressbar', 'meter', 'scrollbar']) RANGE_ROLE[r] = true;
  // Roles of an input a value is typed or picked into (a field's border may mark it wrong).
  const FIELD_ROLE = obj();
  for (const r of ['textbox', 'searchbox', 'combobox', 'spinbutton']) FIELD_ROLE[r] = true;
  function joined(c) { return collapse(apply(arrJoin, c.parts, ['']), NAME_CAP); }
  // The embedded value of a control met inside another element's content.
  function controlValue(el, tag, role) {
    if (tag === 'input') {
      const t = lower(apply(g.inputType, el, []) || 'text');
      if (t === 'checkbox' || t === 'radio' || t === 'hidden' || t === 'file' || t === 'password') return null;
      if (t === 'submit' || t === 'button' || t === 'reset' || t === 'image') return null;
      return apply(g.inputValue, el, []);
    }
    if (tag === 'textarea') return apply(g.textareaValue, el, []);
    if (tag === 'select') {
      const i = apply(selIndex, el, []);
      if (i < 0) return '';
      const o = apply(m.collectionItem, apply(g.selectOptions, el, []), [i]);
      return o ? apply(g.optionLabel, o, []) : '';
    }
    if (role === 'textbox' || role === 'searchbox' || role === 'combobox' || role === 'slider' || role === 'spinbutton') {
      const v = attr(el, 'aria-valuetext') || attr(el, 'aria-valuenow');
      if (v) return v;
      if (role === 'textbox' || role === 'searchbox') return apply(g.textContent, el, []);
    }
    return null;
  }
  // Text of an SVG's <title> child, else of the <title> of a symbol it <use>s (icon sprites).
  function svgTitle(el, depth) {
    for (let c = apply(firstElChild, el, []); c; c = apply(nextElSibling, c, [])) {
      if (apply(g.localName, c, []) === 'title' && apply(g.namespaceURI, c, []) === SVG_NS) return apply(g.textContent, c, []);
    }
    if (depth) return '';
    for (let c = apply(firstElChild, el, []); c; c = apply(nextElSibling, c, [])) {
      if (apply(g.localName, c, []) !== 'use') continue;
      const h = attr(c, 'href') || attr(c, 'xlink:href') || '';
      if (h.length < 2 || apply(strCharCodeAt, h, [0]) !== 35) continue;
      const sym = byId(c, apply(strSlice, h, [1]));
      if (sym) return svgTitle(sym, 1);
    }
    return '';
  }
  // What `el` contributes to a name computed from its ancestor's content (accname's recursion).
  function contentOf(n, c, skip, depth, zero) {
    if (c.len > NAME_CAP * 2 || depth > 40) return;
    const nt = apply(g.nodeType, n, []);
    if (nt === 3) { if (!zero) put(c, apply(g.nodeValue, n, [])); return; }
    if (nt !== 1 || n === skip) return;
    const ln = apply(g.localName, n, []), tag = kindOf(n, ln);
    if (SKIP[tag]) return;
    const cs = styleOf(n);
    if (axHidden(n, cs)) return;
    if (tag === 'br') { put(c, ' '); return; }
    const block = isBlock(cs, ln);
    if (block) put(c, ' ');
    const before = c.len;
    const al = attr(n, 'aria-label');
    const role = roleOf(n, tag);
    const v = controlValue(n, tag, role);
    // A control embedded in another element's content says its value, not its label, as in
    // Chromium (a volume button holding its slider reads "100.00% Mute", not "volume level
    // Mute"); an empty field says its label.
    if (v && collapse(v, 8)) put(c, v);
    else if (al && collapse(al, 8)) put(c, al);
    else if (tag === 'img' || tag === 'area' || (tag === 'input' && lower(apply(g.inputType, n, []) || '') === 'image')) put(c, attr(n, 'alt') || '');
    else if (ln === 'svg' && apply(g.namespaceURI, n, []) === SVG_NS) {
      // Chromium reads an SVG's own <title>, not that of a symbol it <use>s: an icon beside
      // the words "Le direct" does not make the link "live Le direct". The symbol's title
      // names a control only when nothing else does (an icon-only link).
      const own = svgTitle(n, 1);
      if (own) put(c, own);
      else if (!c.sprite) c.sprite = svgTitle(n);
    }
    else if (skipsContentInName(n, tag, role)) {
      // Chromium does not read the content of these into a name computed from content (a
      // link around a figure is named by its words, not the image's alt); a fieldset gives its
      // legend.
      if (tag === 'fieldset') {
        for (let k = apply(firstElChild, n, []); k; k = apply(nextElSibling, k, [])) {
          if (apply(g.localName, k, []) === 'legend') { contentOf(k, c, skip, depth + 1, false); break; }
        }
      }
    } else {
      const kids = flatKids(n), z = zeroFont(cs);
      for (let i = 0; i < kids.length && c.len <= NAME_CAP * 2; i++) contentOf(kids[i], c, skip, depth + 1, z);
    }
    if (c.len === before && (role !== null && role !== 'presentation' && role !== 'none' && role !== 'generic' || ln === 'svg')) {
      // Nothing inside: the tooltip names it, as in Chromium, only if it has a role of its own
      // (an image, a button, an SVG graphic); a plain span's or div's title is not read into
      // the name.
      const ti = attr(n, 'title');
      if (ti) put(c, ti);
    }
    if (block) put(c, ' ');
  }
  function nameFromContent(el, skip) {
    const c = nameCtx();
    const kids = flatKids(el), z = zeroFont(styleOf(el));
    for (let i = 0; i < kids.length && c.len <= NAME_CAP * 2; i++) contentOf(kids[i], c, skip, 0, z);
    return joined(c) || (c.sprite ? collapse(c.sprite, NAME_CAP) : '');
  }
  // ---- What a control with no name says otherwise ----
  //
  // Chromium reads CSS generated content (`::before`, `::after`) into an element's text, so a
  // close button drawn as `::before { content: "\2715" }` is named "✕". It is read here only for
  // a control left with no name: a pseudo-element's style costs as much as two elements' (60 ms
  // more over yahoo's 2,500 elements had every element's been read).
  // A page of a thousand nameless controls must not make every walk slow: past this many
  // pseudo-element reads in one walk (about 10 ms), the rest go unread.
  const PSEUDO_BUDGET = 400;
  let pseudoLeft = PSEUDO_BUDGET;
  function pseudoContent(el, which) {
    if (pseudoLeft <= 0) return '';
    pseudoLeft--;
    const doc = apply(g.ownerDocument, el, []);
    const view = (doc && apply(g.defaultView, doc, [])) || G;
    const ps = apply(m.getComputedStyle, view, [el, which]);
    if (!ps || apply(m.getPropertyValue, ps, ['display']) === 'none') return '';
    return cssStrings(apply(m.getPropertyValue, ps, ['content']) || '');
  }
  function hexDigit(c) {
    if (c >= 48 && c <= 57) return c - 48;
    if (c >= 97 && c <= 102) return c - 87;
    if (c >= 65 && c <= 70) return c - 55;
    return -1;
  }
  // The text of a computed `content` value: its quoted strings with their escapes decoded, or
  // the alternative text after a `/` when it gives one (`"★" / "starred"`). Counters, attr()
  // and images add nothing. Private-use characters (an icon font's glyphs: Font Awesome's
  // trash can is U+F1F8) are dropped: they name nothing a reader could say.
  function cssStrings(v) {
    let main = '', alt = null, cur = null, q = 0;
    for (let i = 0; i < v.length; i++) {
      const ch = apply(strCharCodeAt, v, [i]);
      if (cur === null) {
        if (ch === 34 || ch === 39) { cur = ''; q = ch; } else if (ch === 47) alt = '';
        continue;
      }
      if (ch === q) {
        if (alt !== null) alt += cur; else main += cur;
        cur = null;
        continue;
      }
      if (ch === 92 && i + 1 < v.length) {
        let code = 0, k = 0;
        while (k < 6 && i + 1 < v.length && hexDigit(apply(strCharCodeAt, v, [i + 1])) >= 0) {
          code = code * 16 + hexDigit(apply(strCharCodeAt, v, [i + 1]));
          i++; k++;
        }
        if (k) {
          if (i + 1 < v.length && apply(strCharCodeAt, v, [i + 1]) === 32) i++;
          if (code > 0 && code <= 0x10FFFF) cur += fromCodePoint(code);
        } else {
          i++;
          cur += fromCharCode(apply(strCharCodeAt, v, [i]));
        }
        continue;
      }
      cur += fromCharCode(ch);
    }
    const t = alt !== null ? alt : main;
    let out = '';
    for (let i = 0; i < t.length; i++) {
      const ch = apply(strCharCodeAt, t, [i]);
      if (ch >= 0xE000 && ch <= 0xF8FF) continue;
      // Planes 15 and 16 are private use too (high surrogates U+DB80 to U+DBFF).
      if (ch >= 0xDB80 && ch <= 0xDBFF) { i++; continue; }
      out += fromCharCode(ch);
    }
    return out;
  }
  // The generated content of a nameless control and what it holds (its icon's `::before`), in
  // document order, up to a dozen elements deep in: what Chromium's name would say.
  function pseudoName(el) {
    const parts = arr();
    let seen = 0;
    const visit = (n, depth) => {
      if (seen++ > 12 || depth > 4) return;
      if (depth > 0 && axHidden(n, styleOf(n))) return;
      const b = pseudoContent(n, '::before');
      if (b) parts[parts.length] = b;
      const kids = flatKids(n);
      for (let i = 0; i < kids.length; i++) if (apply(g.nodeType, kids[i], []) === 1) visit(kids[i], depth + 1);
      const a = pseudoContent(n, '::after');
      if (a) parts[parts.length] = a;
    };
    visit(el, 0);
    return collapse(apply(arrJoin, parts, [' ']), NAME_CAP);
  }
  // The words that may tell a nameless control apart: its class names, then those of the
  // icons inside it (an icon font's `<i class="fa fa-trash">`, an empty `<span>`, an `<svg>`),
  // the symbol an SVG icon `<use>`s (`#icon-trash`) and a small image's file name
  // (`/img/trash.svg`). The engine keeps the few that say something (see `render::hint`).
  // Other elements inside are passed through, not read: a teaser link's picture and layout
  // boxes (`thumb`, `media`, `summary`) said nothing of where it goes.
  function iconWords(el) {
    const words = arr();
    let seen = 0;
    const visit = (n, depth) => {
      if (seen++ > 12 || depth > 4) return;
      const ln = apply(g.localName, n, []);
      const cl = attr(n, 'class');
      const icon = depth === 0 || ln === 'i' || ln === 'svg' ||
        (ln === 'span' && !collapse(apply(g.textContent, n, []) || '', 4));
      if (cl && icon) words[words.length] = cl;
      if (ln === 'use') {
        const h = attr(n, 'href') || attr(n, 'xlink:href') || '';
        const at = apply(strLastIndexOf, h, ['#']);
        if (at >= 0) words[words.length] = apply(strSlice, h, [at + 1]);
      } else if (ln === 'img') {
        const r = rectOf(n);
        if (r.w > 48 || r.h > 48) return;
        const src = attr(n, 'src') || '';
        const base = fileName(src);
        const dot = apply(strLastIndexOf, base, ['.']);
        if (!apply(strStartsWith, src, ['data:'])) words[words.length] = dot > 0 ? apply(strSlice, base, [0, dot]) : base;
      }
      const kids = flatKids(n);
      for (let i = 0; i < kids.length; i++) if (apply(g.nodeType, kids[i], []) === 1) visit(kids[i], depth + 1);
    };
    visit(el, 0);
    return apply(arrJoin, words, [' ']);
  }
  // aria-labelledby's referenced elements: their own names (aria-label) or content, hidden or
  // not, but not followed any further.
  function labelledBy(el, by) {
    const ids = apply(strSplit, by, [' ']), c = nameCtx();
    for (let i = 0; i < ids.length; i++) {
      if (!ids[i]) continue;
      const t = byId(el, ids[i]);
      if (!t) continue;
      if (c.parts.length) put(c, ' ');
      const al = attr(t, 'aria-label');
      if (al && collapse(al, 8)) { put(c, al); continue; }
      const kids = flatKids(t);
      for (let k = 0; k < kids.length; k++) {
        const kid = kids[k];
        // The referenced element itself may be hidden; what is hidden inside it is not read.
        if (apply(g.nodeType, kid, []) === 1 && axHidden(kid, styleOf(kid))) continue;
        contentOf(kid, c, null, 1, false);
      }
    }
    return joined(c);
  }

  // The names of a form control's <label>s, read from their content without the control.
  function labelsText(el, tag) {
    let labels = null;
    if (tag === 'input') labels = apply(g.inputLabels, el, []);
    else if (tag === 'select') labels = apply(g.selectLabels, el, []);
    else if (tag === 'textarea') labels = apply(g.textareaLabels, el, []);
    if (!labels) return '';
    const n = apply(g.nodeListLength, labels, []), parts = arr();
    for (let i = 0; i < n; i++) parts[parts.length] = nameFromContent(apply(m.nodeListItem, labels, [i]), el);
    return collapse(apply(arrJoin, parts, [' ']), NAME_CAP);
  }

  // Why a control is invalid, as a person sees it: '' when the page marks it so
  // (aria-invalid) with no message it points at, the message it points at
  // (aria-errormessage), or, for a native field the human has edited or tried to submit
  // (`:user-invalid`, the state Chromium outlines), the browser's own validation message
  // ("Please fill out this field."), which the page otherwise shows only in a bubble no
  // DOM holds. null: valid, or not yet judged.
  function invalidity(el, tag) {
    const ai = attr(el, 'aria-invalid');
    if (ai !== null && ai !== '' && ai !== 'false' && ai !== 'undefined') {
      const id = attr(el, 'aria-errormessage');
      const t = id ? byId(el, id) : null;
      return t ? collapse(apply(g.textContent, t, []) || '', NAME_CAP) : '';
    }
    if (tag !== 'input' && tag !== 'textarea' && tag !== 'select') return null;
    let user = false;
    try { user = apply(m.matches, el, [':user-invalid']); } catch (e) { user = false; }
    if (!user) return null;
    const get = tag === 'input' ? g.inputMessage : tag === 'textarea' ? g.textareaMessage : g.selectMessage;
    return collapse(safe(get, el, '') || '', NAME_CAP);
  }

  // The accessible name of `el` (whose kind is `tag` and role `role`); `doc` is unused and kept
  // for callers' sake (ids are looked up in the element's own tree).
  function nameOf(el, tag, role, doc) {
    const by = attr(el, 'aria-labelledby');
    if (by) {
      const l = labelledBy(el, by);
      if (l) return l;
    }
    const label = attr(el, 'aria-label');
    if (label && collapse(label, NAME_CAP)) return collapse(label, NAME_CAP);
    if (tag === 'input' || tag === 'select' || tag === 'textarea') {
      const t = tag === 'input' ? lower(apply(g.inputType, el, []) || '') : '';
      if (t === 'submit' || t === 'button' || t === 'reset') {
        const v = apply(g.inputValue, el, []);
        if (v) return collapse(v, NAME_CAP);
        return t === 'reset' ? 'Reset' : (t === 'submit' ? 'Submit' : '');
      }
      if (t === 'image') {
        const alt = attr(el, 'alt') || apply(g.inputValue, el, []);
        return collapse(alt || 'Submit', NAME_CAP);
      }
      const l = labelsText(el, tag);
      if (l) return l;
      const ti = attr(el, 'title');
      if (ti) return collapse(ti, NAME_CAP);
      const ph = attr(el, 'placeholder');
      return ph ? collapse(ph, NAME_CAP) : '';
    }
    if (tag === 'img' || tag === 'area') {
      const alt = attr(el, 'alt');
      if (alt) return collapse(alt, NAME_CAP);
    }
    if (tag === 'svg' && apply(g.namespaceURI, el, []) === SVG_NS) {
      const t = collapse(svgTitle(el), NAME_CAP);
      if (t) return t;
    }
    if (tag === 'fieldset' || tag === 'figure' || tag === 'table') {
      const want = tag === 'fieldset' ? 'legend' : tag === 'figure' ? 'figcaption' : 'caption';
      for (let c = apply(firstElChild, el, []); c; c = apply(nextElSibling, c, [])) {
        if (apply(g.localName, c, []) === want) { const t = nameFromContent(c, null); if (t) return t; break; }
      }
    }
    if (role && NAME_FROM_CONTENT[role]) {
      const t = nameFromContent(el, null);
      if (t) return t;
    }
    const ti = attr(el, 'title');
    return ti ? collapse(ti, NAME_CAP) : '';
  }

  // The flat-tree parent: through shadow roots to their host, and out of a same-origin frame
  // to its <iframe>.
  function flatParent(n) {
    const p = apply(g.parentNode, n, []);
    if (p) {
      // A shadow root (a document fragment) stands for its host.
      return apply(g.nodeType, p, []) === 11 ? safe(g.host, p, null) : p;
    }
    if (apply(g.nodeType, n, []) === 9) {
      const w = apply(g.defaultView, n, []);
      return w ? safe(g.frameElement, w, null) : null;
    }
    return null;
  }
  function flatContains(anc, n) {
    for (let i = 0; n && i < 10000; i++, n = flatParent(n)) if (n === anc) return true;
    return false;
  }
  // The focused element, through open shadow roots and same-origin frames; `remote` when focus
  // is inside a frame of another site (its keys never reach this renderer's windows).
  function deepActive() {
    const out = obj0();
    out.remote = false;
    let a = apply(g.activeElement, G.document, []);
    for (let i = 0; a && i < 64; i++) {
      const sr = safe(g.shadowRoot, a, null);
      const inner = sr ? safe(g.srActive, sr, null) : null;
      if (inner) { a = inner; continue; }
      if (kindOf(a, apply(g.localName, a, [])) !== 'iframe') break;
      const d = apply(g.iframeDoc, a, []);
      if (!d) { out.remote = true; break; }
      const fa = apply(g.activeElement, d, []);
      if (!fa) break;
      a = fa;
    }
    out.el = a;
    return out;
  }
  function sameField(a, b) {
    if (apply(g.localName, a, []) !== apply(g.localName, b, [])) return false;
    const da = describe(a), db = describe(b);
    return da.role === db.role && da.name === db.name && attr(a, 'type') === attr(b, 'type');
  }
  // A short description of an element for the app's answers (page text: the app fences it):
  // its role, else its tag, and its name, else the start of its text.
  function describe(el) {
    const out = obj0();
    if (!el) { out.role = 'nothing'; return out; }
    try {
      const ln = apply(g.localName, el, []);
      if (ln === 'body' || ln === 'html') { out.role = ln; return out; }
      const tag = kindOf(el, ln);
      const role = roleOf(el, tag);
      out.role = role || ln;
      let nm = nameOf(el, tag, role, apply(g.ownerDocument, el, []));
      // Its words as the accessibility tree joins them (apart at box edges: two buttons
      // read "Yes, delete Cancel", where innerText runs them into "deleteCancel").
      if (!nm) nm = nameFromContent(el, null) || collapse(safe(g.innerText, el, null) ?? apply(g.textContent, el, []), 80);
      if (nm) out.name = apply(strSlice, nm, [0, 80]);
    } catch (err) { out.role = 'element'; }
    return out;
  }
  // The element at a point of the top-level viewport, through open shadow roots and
  // same-origin frames (each reached frame is instrumented, so input there is counted);
  // `remote` when the point is over a frame of another site.
  function hitAt(x, y) {
    const out = obj0();
    out.remote = false;
    let doc = G.document, ox = 0, oy = 0, h = null;
    for (let depth = 0; depth < 16; depth++) {
      h = apply(m.docFromPoint, doc, [x - ox, y - oy]);
      for (let i = 0; h && i < 64; i++) {
        const sr = safe(g.shadowRoot, h, null);
        const inner = sr ? apply(m.srFromPoint, sr, [x - ox, y - oy]) : null;
        if (!inner || inner === h) break;
        h = inner;
      }
      if (!h || kindOf(h, apply(g.localName, h, [])) !== 'iframe') break;
      const d = apply(g.iframeDoc, h, []);
      if (!d) { out.remote = true; break; }
      const view = apply(g.defaultView, d, []);
      instrument(view);
      const r = rectOf(h);
      const cs = apply(m.getComputedStyle, apply(g.defaultView, doc, []) || G, [h]);
      ox += r.x + (+apply(strSlice, apply(m.getPropertyValue, cs, ['border-left-width']), [0, -2]) || 0);
      oy += r.y + (+apply(strSlice, apply(m.getPropertyValue, cs, ['border-top-width']), [0, -2]) || 0);
      doc = d;
    }
    out.el = h;
    return out;
  }
  // Whether a pointer event at `hit` goes to `el`: `hit` is `el` or inside it, or is (inside) a
  // <label> of it (a styled checkbox hides its input under its label), or `el` is an option of
  // the <select> hit.
  // The nearest box around `el` that scrolls (its overflow lets it, and it has more to show),
  // or null when only the page does.
  function scrollerOf(el) {
    for (let n = flatParent(el), i = 0; n && i < 10000; i++, n = flatParent(n)) {
      if (apply(g.nodeType, n, []) !== 1) continue;
      const ln = apply(g.localName, n, []);
      if (ln === 'html' || ln === 'body') return null;
      const cs = styleOf(n);
      const oy = apply(m.getPropertyValue, cs, ['overflow-y']), ox = apply(m.getPropertyValue, cs, ['overflow-x']);
      const canY = (oy === 'auto' || oy === 'scroll') && safe(g.scrollHeight, n, 0) > safe(g.clientHeight, n, 0);
      const canX = (ox === 'auto' || ox === 'scroll') && safe(g.scrollWidth, n, 0) > safe(g.clientWidth, n, 0);
      if (canY || canX) return n;
    }
    return null;
  }
  function reaches(el, hit) {
    if (!hit) return false;
    if (flatContains(el, hit)) return true;
    for (let n = hit, i = 0; n && i < 10000; i++, n = flatParent(n)) {
      if (apply(g.nodeType, n, []) === 1 && kindOf(n, apply(g.localName, n, [])) === 'label' &&
          apply(g.namespaceURI, n, []) === HTML_NS && safe(g.labelControl, n, null) === el) return true;
    }
    const tag = kindOf(el, apply(g.localName, el, []));
    return (tag === 'option' || tag === 'optgroup') && flatContains(hit, el);
  }

  // The element's own text: its text children in the flat tree (a host's shadow content stands
  // for its light children, a slot's assigned nodes for its own), whitespace-collapsed. Each
  // element child gets, in `marks`, the offset (in code points) of the own text where it
  // sits, so an inline link keeps its place in its sentence.
  const MapCtor = G.Map, MapP = MapCtor.prototype;
  const mapGet = MapP.get, mapSet = MapP.set, mapHas = MapP.has;
  // The marks of the latest ownText call (null when the element has no element children),
  // and whether its text began (1) and ended (2) with white space: an inline element's text
  // reads into its parent's sentence with or without a space on each side.
  let marks = null, pads = 0;
  function ownText(el) {
    marks = null;
    pads = 0;
    const out = arr(), kids = flatKids(el);
    let len = 0, pend = false, after = false;
    for (let k = 0; k < kids.length && len < TEXT_CAP; k++) {
      const c = kids[k], nt = apply(g.nodeType, c, []);
      if (nt === 3) {
        const v = apply(g.nodeValue, c, []) || '';
        for (let i = 0; i < v.length && len < TEXT_CAP; i++) {
          const ch = apply(strCharCodeAt, v, [i]);
          if (isSpace(ch)) {
            if (len === 0 && !after) pads = 1;
            pend = len > 0 || after;
            continue;
          }
          if (pend) { out[out.length] = ' '; len++; pend = false; }
          out[out.length] = fromCharCode(ch);
          // A low surrogate finishes a code point already counted.
          if (ch < 0xDC00 || ch > 0xDFFF) len++;
        }
      } else if (nt === 1) {
        if (pend) { out[out.length] = ' '; len++; pend = false; }
        if (marks === null) marks = new MapCtor();
        apply(mapSet, marks, [c, len]);
        after = true;
      }
    }
    if (pend) pads |= 2;
    if (out.length && out[out.length - 1] === ' ') { out.length = out.length - 1; pads |= 2; }
    return apply(arrJoin, out, ['']);
  }

  // ---- Script-made controls ----------------------------------------------------------------
  //
  // Pages make elements clickable with script (a <span> link, a list item that edits on
  // double-click) as often as with markup. This runs before any page script, so it replaces
  // EventTarget.prototype.addEventListener, and the setters of onclick and its kin, by Proxies
  // of themselves (calls, name, length and toString behave as the originals') that note the
  // elements given a listener of these types.
  const CLICKY = obj();
  // A drag source and a drop zone are acted on too (`browser_act drag` needs refs for both).
  for (const t of ['click', 'mousedown', 'mouseup', 'pointerdown', 'pointerup', 'dblclick', 'dragstart', 'drop']) CLICKY[t] = true;
  const listened = new G.WeakSet(), lsAdd = G.WeakSet.prototype.add, lsHas = G.WeakSet.prototype.has;
  // Key listeners are noted apart: on an element the user can Tab to they make it a keyboard
  // control (a slider handle, a custom listbox), which the agent reaches with `key` on its ref.
  // Anywhere else they only hear keys bubbling up from somewhere focused inside.
  const KEYISH = obj();
  for (const t of ['keydown', 'keyup', 'keypress']) KEYISH[t] = true;
  const keyListened = new G.WeakSet();
  // Pointer-enter listeners, noted for drawn shapes only: a square or circle of a drawing that
  // answers the pointer resting on it (a hover target, a shape to keep the mouse in) is only
  // reachable through a ref. On HTML elements they are too common (tooltips, highlights).
  const HOVERY = obj();
  for (const t of ['mouseenter', 'mouseover', 'pointerenter', 'pointerover']) HOVERY[t] = true;
  const hoverListened = new G.WeakSet();
  const ProxyCtor = G.Proxy, defProp = O.defineProperty;
  function noteListener(self, set) {
    try { if (apply(g.nodeType, self, []) === 1) apply(lsAdd, set, [self]); } catch (e) { /* not a node */ }
  }
  {
    const ET = G.EventTarget.prototype;
    const h = obj();
    h.apply = function (target, self, args) {
      if (args.length > 1 && typeof args[0] === 'string' && args[1]) {
        if (CLICKY[args[0]] === true) noteListener(self, listened);
        else if (KEYISH[args[0]] === true) noteListener(self, keyListened);
        else if (HOVERY[args[0]] === true) noteListener(self, hoverListened);
      }
      return apply(target, self, args);
    };
    proxyInPlace(ET, 'addEventListener', h);
    const HE = G.HTMLElement.prototype;
    for (const p of ['onclick', 'onmousedown', 'onmouseup', 'onpointerdown', 'ondblclick', 'ondragstart', 'ondrop', 'onkeydown', 'onkeyup', 'onkeypress']) {
      const pd = gopd(HE, p);
      if (!pd || typeof pd.set !== 'function') continue;
      const set = KEYISH[apply(strSlice, p, [2])] === true ? keyListened : listened;
      const h = obj();
      h.apply = function (target, self, args) {
        if (typeof args[0] === 'function') noteListener(self, set);
        return apply(target, self, args);
      };
      const nd = obj();
      nd.get = pd.get; nd.set = new ProxyCtor(pd.set, h); nd.enumerable = pd.enumerable; nd.configurable = pd.configurable;
      defProp(HE, p, nd);
    }
  }
  // React (17 and later, and 16) hands events out from its root; its handlers sit in a props
  // object it keeps on each element.
  const keysOf = O.keys;
  const REACT_HANDLERS = ['onClick', 'onMouseDown', 'onMouseUp', 'onPointerDown', 'onPointerUp', 'onDoubleClick'];
  function reactClickable(el) {
    const ks = keysOf(el);
    for (let i = 0; i < ks.length; i++) {
      const k = ks[i];
      if (apply(strIndexOf, k, ['__reactProps$']) !== 0 && apply(strIndexOf, k, ['__reactEventHandlers$']) !== 0) continue;
      const pd = gopd(el, k), props = pd && pd.value;
      if (!props || typeof props !== 'object') return false;
      for (let j = 0; j < REACT_HANDLERS.length; j++) {
        const hd = gopd(props, REACT_HANDLERS[j]);
        if (hd && typeof hd.value === 'function') return true;
      }
      return false;
    }
    return false;
  }
  function scriptClickable(el) {
    return apply(lsHas, listened, [el]) || reactClickable(el);
  }
  // Whether `el`'s list (its <ul> or <ol>) listens for presses itself.
  function listenedParent(el) {
    const p = flatParent(el);
    if (!p || apply(g.nodeType, p, []) !== 1) return false;
    const pt = apply(g.localName, p, []);
    return (pt === 'ul' || pt === 'ol') && apply(lsHas, listened, [p]);
  }
  const DRAG_CURSOR = obj0();
  for (const c of ['move', 'grab', 'all-scroll', 'col-resize', 'row-resize', 'n-resize', 'e-resize', 's-resize', 'w-resize',
    'ne-resize', 'nw-resize', 'se-resize', 'sw-resize', 'ew-resize', 'ns-resize', 'nesw-resize', 'nwse-resize']) DRAG_CURSOR[c] = true;

  // ---- Hover roots: what a pointer resting on it reveals ----------------------------------
  //
  // A menu opened by CSS alone (`li:hover > ul { display: block }`) has no listener to note:
  // its item is a control only through the style sheet. A rule whose selector is `X:hover`
  // then a descendant or child `Y`, and which sets `display` (not none) or `visibility:
  // visible`, makes each X whose Y is hidden now a hover root: it gets a ref, so the agent can
  // hover it (or click it, which moves the pointer there first) and see the menu in the diff.
  // Only same-origin sheets can be read; rules and roots are capped so a huge sheet costs a
  // bounded time.
  const sheetsGet = getter(DocP, 'styleSheets');
  const sheetListLen = getter(G.StyleSheetList.prototype, 'length');
  const sheetListItem = method(G.StyleSheetList.prototype, 'item');
  const cssRulesGet = getter(G.CSSStyleSheet.prototype, 'cssRules');
  const ruleListLen = getter(G.CSSRuleList.prototype, 'length');
  const ruleListItem = method(G.CSSRuleList.prototype, 'item');
  const groupRulesGet = G.CSSGroupingRule ? getter(G.CSSGroupingRule.prototype, 'cssRules') : undefined;
  const selectorTextGet = getter(G.CSSStyleRule.prototype, 'selectorText');
  const ruleStyleGet = getter(G.CSSStyleRule.prototype, 'style');
  const StyleRuleP = G.CSSStyleRule.prototype;
  const elQuery = method(ElP, 'querySelector');
  const isProtoOf = G.Object.prototype.isPrototypeOf;
  const HOVER_RULES_CAP = 30, CSS_RULES_CAP = 3000, HOVER_ROOTS_CAP = 200;
  // Splits a selector list at its top-level commas (`:is(a, b)` holds one).
  function splitSelectors(t) {
    const out = arr();
    let depth = 0, from = 0;
    for (let i = 0; i < t.length; i++) {
      const c = t[i];
      if (c === '(' || c === '[') depth++;
      else if (c === ')' || c === ']') depth--;
      else if (c === ',' && depth === 0) { out[out.length] = apply(strSlice, t, [from, i]); from = i + 1; }
    }
    out[out.length] = apply(strSlice, t, [from]);
    return out;
  }
  function hoverRoots(doc) {
    const roots = new WeakSetCtor();
    const rules = arr();
    let seen = 0;
    const visit = (list) => {
      const n = apply(ruleListLen, list, []);
      for (let i = 0; i < n && seen < CSS_RULES_CAP && rules.length < HOVER_RULES_CAP; i++) {
        seen++;
        const r = apply(ruleListItem, list, [i]);
        if (apply(isProtoOf, StyleRuleP, [r])) {
          const sel = apply(selectorTextGet, r, []);
          if (apply(strIndexOf, sel, [':hover']) < 0) continue;
          const st = apply(ruleStyleGet, r, []);
          const d = apply(m.getPropertyValue, st, ['display']), v = apply(m.getPropertyValue, st, ['visibility']);
          if (!((d !== '' && d !== 'none') || v === 'visible')) continue;
          const parts = splitSelectors(sel);
          for (let k = 0; k < parts.length; k++) {
            const one = parts[k], at = apply(strIndexOf, one, [':hover']);
            // Another selector of the list, not hovered (`a:hover > b, .c > .d`): nothing to
            // take apart (cut at -1, it would make `.c > .` of it).
            if (at < 0) continue;
            const x = apply(strSlice, one, [0, at]), rest = apply(strSlice, one, [at + 6]);
            // X then a descendant or child combinator; nothing else hovered along the way.
            if (x === '' || x[x.length - 1] === ' ' || apply(strIndexOf, rest, [':hover']) >= 0) continue;
            if (rest === '' || (rest[0] !== ' ' && rest[0] !== '>')) continue;
            rules[rules.length] = [x, ':scope ' + rest];
          }
        } else if (groupRulesGet !== undefined) {
          // @media, @supports and the like hold rules of their own.
          let inner = null;
          try { inner = apply(groupRulesGet, r, []); } catch (e) { inner = null; }
          if (inner) visit(inner);
        }
      }
    };
    const sheets = apply(sheetsGet, doc, []);
    const ns = apply(sheetListLen, sheets, []);
    for (let i = 0; i < ns; i++) {
      let list = null;
      // A sheet of another origin cannot be read; that is all it costs.
      try { list = apply(cssRulesGet, apply(sheetListItem, sheets, [i]), []); } catch (e) { list = null; }
      if (list) visit(list);
    }
    let count = 0;
    for (let i = 0; i < rules.length && count < HOVER_ROOTS_CAP; i++) {
      let found = null;
      try { found = apply(m.querySelectorAll, doc, [rules[i][0]]); } catch (e) { continue; }
      const n = apply(g.nodeListLength, found, []);
      for (let j = 0; j < n && count < HOVER_ROOTS_CAP; j++) {
        const el = apply(m.nodeListItem, found, [j]);
        let y = null;
        try { y = apply(elQuery, el, [rules[i][1]]); } catch (e) { break; }
        if (!y) continue;
        const ycs = apply(m.getComputedStyle, apply(g.defaultView, doc, []) || G, [y]);
        if (apply(m.getPropertyValue, ycs, ['display']) === 'none' ||
            apply(m.getPropertyValue, ycs, ['visibility']) === 'hidden') {
          apply(wsAdd, roots, [el]);
          count++;
        }
      }
    }
    return roots;
  }

  // ---- Quiet: how long the document has gone without changing --------------------------------
  //
  // A navigation's answer should show a client-rendered app rendered, so walks report how long
  // ago the DOM last changed (children or text; attribute churn from animations is not
  // content). The observer is ours from the document's creation and the page cannot reach it.
  let lastMutation = now();
  {
    const mo = new G.MutationObserver(function () { lastMutation = now(); });
    const opts = obj();
    opts.childList = true; opts.subtree = true; opts.characterData = true;
    try { apply(G.MutationObserver.prototype.observe, mo, [G.document, opts]); } catch (e) { /* no document yet */ }
  }
  function domQuietMs() { return mathRound(mathMax(0, now() - lastMutation)); }
  // An action's answer waits for the page's reaction to end, and many reactions change only
  // attributes: a hover menu shown by its style after a delay, a jQuery fade stepping opacity,
  // a panel collapsing by height. So a second clock counts those too (the attributes that
  // change what is shown, not the data-* churn of analytics scripts).
  let lastChange = now();
  {
    const mo = new G.MutationObserver(function () { lastChange = now(); });
    const opts = obj();
    opts.childList = true; opts.subtree = true; opts.characterData = true; opts.attributes = true;
    opts.attributeFilter = ['style', 'class', 'hidden', 'open', 'src', 'disabled', 'aria-hidden', 'aria-expanded',
      'aria-selected', 'aria-checked', 'aria-disabled', 'aria-invalid'];
    try { apply(G.MutationObserver.prototype.observe, mo, [G.document, opts]); } catch (e) { /* no document yet */ }
  }
  function changeQuietMs() { return mathRound(mathMax(0, now() - lastChange)); }

  const HREF_A = getter(G.HTMLAnchorElement.prototype, 'href');
  const labelCtl = getter(G.HTMLLabelElement.prototype, 'control');
  // A select's options, on its record: the first OPTIONS_CAP and every selected one, in order,
  // and how many were left out.
  const OPTIONS_CAP = 40;
  function listOptions(sel, n) {
    const coll = apply(g.selectOptions, sel, []);
    const total = apply(g.optionsLength, coll, []);
    const opts = arr();
    let more = 0;
    for (let i = 0; i < total; i++) {
      const o = apply(m.collectionItem, coll, [i]);
      const selected = !!apply(g.optionSelected, o, []);
      if (opts.length >= OPTIONS_CAP && !selected) { more++; continue; }
      const x = obj();
      x.l = collapse(apply(g.optionLabel, o, []), NAME_CAP);
      if (selected) x.s = true;
      opts[opts.length] = x;
    }
    if (opts.length) n.options = opts;
    if (more) n.more_options = more;
  }

  // Whether a user can reach a control the accessibility tree hides (aria-hidden): it has
  // area, is drawn (not invisible or transparent), lies where scrolling reaches (not above or
  // left of the page), and no ancestor that clips its overflow cuts it away: a collapsed box (a
  // menu of height 0), or one that a user cannot scroll (`overflow: hidden` or `clip`: the page
  // behind a modal is often such a box, the viewport's height, its rest out of sight). What
  // lies past the end of a box the user scrolls (`auto`, `scroll`: an open dropdown's long
  // list) is reached by scrolling it, as what lies below the fold of the page is. An absolutely
  // positioned box escapes the clipping of ancestors below its containing block, and a fixed
  // one all of them.
  function reachable(el, r, cs, visibility, opacity, frame) {
    if (!(r.w > 0 && r.h > 0) || visibility !== 'visible' || opacity === '0') return false;
    if (frame === 0 && (r.x + r.w + apply(g.scrollX, G, []) <= 0 || r.y + r.h + apply(g.scrollY, G, []) <= 0)) return false;
    let x0 = r.x, y0 = r.y, x1 = r.x + r.w, y1 = r.y + r.h;
    let pos = apply(m.getPropertyValue, cs, ['position']);
    if (pos === 'fixed') return true;
    let abs = pos === 'absolute';
    for (let n = flatParent(el), i = 0; n && i < 256; n = flatParent(n), i++) {
      if (apply(g.nodeType, n, []) !== 1) break;
      const ln = apply(g.localName, n, []);
      // Their overflow is the viewport's (scrolled, not clipped), and an iframe is a frame
      // boundary: what is inside was placed by its own document.
      if (ln === 'body' || ln === 'html' || ln === 'iframe') break;
      const pcs = styleOf(n);
      pos = apply(m.getPropertyValue, pcs, ['position']);
      const positioned = pos !== 'static';
      if (!abs || positioned) {
        const ovx = apply(m.getPropertyValue, pcs, ['overflow-x']), ovy = apply(m.getPropertyValue, pcs, ['overflow-y']);
        if (ovx !== 'visible' || ovy !== 'visible') {
          const q = rectOf(n);
          if (ovx !== 'visible') {
            const a = clipAxis(x0, x1, q.x, q.x + q.w, ovx, apply(g.scrollLeft, n, []));
            if (a === null) return false;
            x0 = a[0]; x1 = a[1];
          }
          if (ovy !== 'visible') {
            const a = clipAxis(y0, y1, q.y, q.y + q.h, ovy, apply(g.scrollTop, n, []));
            if (a === null) return false;
            y0 = a[0]; y1 = a[1];
          }
        }
      }
      if (apply(m.getPropertyValue, pcs, ['opacity']) === '0') return false;
      if (pos === 'fixed') return true;
      if (positioned) abs = pos === 'absolute';
    }
    return true;
  }

  // Where [a0, a1] can be seen through a box spanning [b0, b1] on one axis that clips with
  // `ov` and is scrolled `scrolled` from its start: the part inside, else the whole box when
  // the user scrolling it brings [a0, a1] in (it may then be anywhere in it); null when
  // nothing does.
  function clipAxis(a0, a1, b0, b1, ov, scrolled) {
    if (b1 - b0 < 1) return null;
    const out = arr();
    out[0] = mathMax(a0, b0); out[1] = mathMin(a1, b1);
    if (out[1] - out[0] >= 1) return out;
    if (ov !== 'auto' && ov !== 'scroll' || a1 <= b0 - mathMax(0, scrolled || 0)) return null;
    out[0] = b0; out[1] = b1;
    return out;
  }

  // The checkbox, radio or file input a <label> works when that input is not rendered
  // (display:none, inside something that is, or invisible) and can be used; else null.
  function hiddenControl(label) {
    if (apply(g.namespaceURI, label, []) !== HTML_NS) return null;
    const c = safe(labelCtl, label, null);
    if (!c || kindOf(c, apply(g.localName, c, [])) !== 'input' || apply(m.matches, c, [':disabled'])) return null;
    const t = lower(apply(g.inputType, c, []) || '');
    if (t !== 'checkbox' && t !== 'radio' && t !== 'file') return null;
    if (apply(listLen, apply(m.getClientRects, c, []), []) > 0) {
      const v = apply(m.getPropertyValue, styleOf(c), ['visibility']);
      if (v !== 'hidden' && v !== 'collapse') return null;
    }
    return c;
  }

  function tri(v) { return v === 'true' ? 'true' : v === 'false' ? 'false' : v === 'mixed' ? 'mixed' : undefined; }

  function walk(cap, sub) {
    const t0 = now();
    pseudoLeft = PSEUDO_BUDGET;
    // A frame's walk for the app to place under its <iframe>: none when the parent's walker
    // reaches this document itself.
    const mySlot = sub ? ownSlot() : -1;
    if (sub && (mySlot < 0 || safe(g.frameElement, G, null))) {
      // Its slot still places the frames of other sites inside it.
      const out = obj();
      out.reached = true;
      if (mySlot >= 0) out.slot = mySlot;
      return out;
    }
    const id = ++walkSeq;
    const els = arr(), frames = arr(), nodes = arr();
    const nodeCap = cap > 0 ? cap : DEFAULT_NODE_CAP;
    let visited = 0, truncated = false, errors = 0;
    const topDoc = G.document;
    const active = apply(g.activeElement, topDoc, []);
    let hovers = null;
    try { hovers = hoverRoots(topDoc); } catch (e) { hovers = null; }

    // Iterative pre-order over the flat tree (light DOM, open shadow roots, slots,
    // same-origin iframes). Each stack entry: [node, parentIdx, frameIdx, offX, offY, inShadow,
    // doc, parentPointer (the parent's cursor is a pointer), at (offset in the reported
    // parent's own text, or -1), axHidden (inside an aria-hidden subtree)].
    const stack = arr();
    const root = apply(g.documentElement, topDoc, []);
    if (root) stack[0] = [root, -1, 0, 0, 0, false, topDoc, false, -1, false, false];
    // <label>s and the controls they label, matched up after the walk; controls by element.
    const labelsFor = arr(), controlIdx = new MapCtor();
    // Elements reported only because their cursor is a pointer: dropped again when something
    // inside them is actionable (the pointer is that thing's).
    const pointerOnly = arr();
    const vw = apply(g.innerWidth, G, []), vh = apply(g.innerHeight, G, []);
    let frameCount = 0;
    while (stack.length) {
      const e = stack[stack.length - 1];
      stack.length = stack.length - 1;
      // One odd element (a custom element whose getters throw, a detached frame) must not
      // cost the whole walk: it and its subtree are skipped and counted.
      try {
      const el = e[0], parentIdx = e[1], frame = e[2], ox = e[3], oy = e[4], inShadow = e[5], doc = e[6];
      const parentPointer = e[7], at = e[8], hiddenAbove = e[9], disabledAbove = e[10];
      if (apply(g.nodeType, el, []) !== 1) continue;
      // `tag` decides how the element is handled; `localName` is what is reported.
      const localName = apply(g.localName, el, []);
      const tag = kindOf(el, localName);
      if (SKIP[tag]) continue;
      visited++;
      const view = apply(g.defaultView, doc, []) || G;
      const cs = apply(m.getComputedStyle, view, [el]);
      const display = apply(m.getPropertyValue, cs, ['display']);
      if (display === 'none' && tag !== 'option' && tag !== 'optgroup') continue;
      // Chromium's accessibility tree leaves aria-hidden subtrees out, but pages put
      // aria-hidden on regions that stay on screen and clickable (a dropdown laid out open, the
      // page behind a "modal", advert blocks, a card's overlay link). A user sees and clicks
      // those controls, so the agent must have them: such a subtree is walked for the controls
      // a user can reach, and nothing else in it is reported.
      const axh = hiddenAbove || attr(el, 'aria-hidden') === 'true';
      const r = display === 'contents' ? { x: 0, y: 0, w: 0, h: 0 } : rectOf(el);
      const visibility = apply(m.getPropertyValue, cs, ['visibility']);
      const opacity = apply(m.getPropertyValue, cs, ['opacity']);
      // A label whose checkbox, radio or file input is not rendered is how a user works that
      // control (tabs made of hidden radios, a styled upload button): it stands in for it, with
      // the control's role and state.
      const standIn = tag === 'label' ? hiddenControl(el) : null;
      const role = standIn !== null ? roleOf(standIn, 'input') : roleOf(el, tag);
      const ariaDis = attr(el, 'aria-disabled') === 'true';
      const dis = apply(m.matches, el, [':disabled']) || ariaDis;
      // aria-disabled on a container disables the controls inside it (a menu's disabled item
      // is its <li>, the menuitem inside): they are marked so, and keep their refs.
      const disDown = disabledAbove === true || ariaDis;
      // Inside a contenteditable region every element is content-editable too, but only the
      // editing host is a field: a word made bold in an editor is its text, not a textbox.
      const editable = !!safe(g.isContentEditable, el, false) && !safe(g.isContentEditable, apply(g.parentNode, el, []), false) ||
        ((tag === 'input' && role !== 'button' && role !== 'checkbox' && role !== 'radio' && role !== 'slider' || tag === 'textarea') && !dis &&
          !apply(m.hasAttribute, el, ['readonly']));
      const ti = safe(g.tabIndex, el, -1);
      const hasTabindex = apply(m.hasAttribute, el, ['tabindex']);
      const focusable = !dis && (ti >= 0 && (hasTabindex || tag === 'a' || tag === 'button' || tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'summary' || tag === 'iframe' || role === 'audio' || role === 'video') || editable);
      // A disabled control is still one (Chromium's accessibility tree has it, marked
      // disabled): it keeps its ref, and the `disabled` flag says it does nothing now.
      const native = (tag === 'a' && apply(m.hasAttribute, el, ['href'])) || tag === 'button' ||
        (tag === 'input' && role !== null) || tag === 'select' || tag === 'textarea' ||
        tag === 'summary' || tag === 'option' || (role !== null && WIDGET[role] === true) || standIn !== null ||
        (!dis && (apply(m.hasAttribute, el, ['onclick']) || editable || (hasTabindex && ti >= 0 && role !== null)));
      // Made clickable by script, or (weaker) where a pointer cursor starts: not the page's
      // whole width and height, which is a wrapper catching clicks for something else. A
      // canvas or an svg listening for presses is the surface pressed (a game, a chart, a
      // map), however large: clicked at a point of it (`x`, `y`).
      const cursor = apply(m.getPropertyValue, cs, ['cursor']);
      const pointer = cursor === 'pointer';
      const surface = (tag === 'canvas' || tag === 'svg') && scriptClickable(el);
      let scripted = false, byPointer = false;
      if (!native && !dis && tag !== 'html' && tag !== 'body' && tag !== 'label' && (r.w * r.h < 0.4 * vw * vh || surface)) {
        if (scriptClickable(el) || attr(el, 'draggable') === 'true') scripted = true;
        // An item of a list whose pointer listener is on the list (a sortable list, a menu or
        // suggestion list that handles its items' presses in one place) is what a person
        // presses or drags.
        else if (tag === 'li' && r.w > 0 && r.h > 0 && listenedParent(el)) scripted = true;
        // A cursor that says "drag me" (a resize grip, a movable card) is a control too.
        else if (!parentPointer && r.w > 0 && r.h > 0 && DRAG_CURSOR[cursor] === true) { scripted = true; byPointer = true; }
        else if (focusable && hasTabindex && apply(lsHas, keyListened, [el])) scripted = true;
        else if (hovers !== null && apply(wsHas, hovers, [el])) scripted = true;
        else if (r.w > 0 && r.h > 0 && apply(lsHas, hoverListened, [el]) && svgShape(el, tag)) scripted = true;
        else if (pointer && !parentPointer && r.w > 0 && r.h > 0) { scripted = true; byPointer = true; }
      }
      const actionable = native || scripted;
      const zf = zeroFont(cs);
      if (zf) pads = 0;
      const text = zf ? '' : ownText(el);
      const myMarks = text !== '' ? marks : null, myPads = pads;
      const domId = attr(el, 'id');
      const testid = attr(el, 'data-testid') || attr(el, 'data-test-id') || attr(el, 'data-test');
      const nameAttr = attr(el, 'name');
      const sr = apply(g.shadowRoot, el, []);
      const iframeDoc = tag === 'iframe' ? apply(g.iframeDoc, el, []) : null;
      if (iframeDoc) instrument(apply(g.defaultView, iframeDoc, []));
      // Every iframe says which of its window's frames it holds: one this walk cannot enter
      // (another origin) is walked by the app in its own renderer and placed here, and one it
      // walks inline tells the app where the frames inside that one belong.
      const slot = tag === 'iframe' ? slotOf(el, view) : -1;
      const report = axh
        ? native || (scripted && !byPointer) ? reachable(el, r, cs, visibility, opacity, frame) : false
        : actionable || focusable || editable || role !== null || text !== '' || !!domId ||
          !!testid || SEMANTIC[tag] === true || !!sr || tag === 'iframe';
      let myIdx = parentIdx;
      if (report) {
        if (nodes.length >= nodeCap) { truncated = true; break; }
        myIdx = nodes.length;
        const n = obj();
        n.idx = myIdx;
        n.uid = uidOf(el);
        if (parentIdx >= 0) n.parent = parentIdx;
        n.tag = localName;
        // A control with no role (script-made, an onclick attribute) is named as a button is:
        // by its content before its title. An anchor that is one is a link, as in Chromium.
        const clickable = actionable && !role && !editable;
        if (role) n.role = role;
        else if (clickable && tag === 'a') n.role = 'link';
        // A contenteditable region is a text field to Chromium's accessibility tree too.
        else if (editable && tag !== 'input' && tag !== 'textarea') n.role = 'textbox';
        // So is one whose role is not named from its content (a list item with an onclick):
        // the agent acts on it by what it says.
        let nm = nameOf(el, tag, clickable || (actionable && ITEM_ROLE[role] === true) ? 'button' : role, doc);
        if (!nm && actionable && !editable) nm = pseudoName(el);
        if (nm) n.name = nm;
        // A control with no name at all (an icon drawn by CSS: `<span class="trash">`) is
        // told apart only by its class words and its icon's, which the engine shows as a hint.
        else if (actionable) { const cl = iconWords(el); if (cl) n.class_name = collapse(cl, 200); }
        // Its looks tell a shape of a drawing apart (a lettered shape is named by its letter
        // and still drawn in a colour), and a nameless control that is nothing but a box of
        // colour (a swatch): not a field, whose box is where its value goes, nor a box holding
        // an icon or a picture, whose background says little.
        if (actionable && (svgShape(el, tag) ||
          !nm && !editable && !apply(firstElChild, el, []) && (!n.role || n.role === 'button' || n.role === 'link') &&
            tag !== 'input' && tag !== 'select' && tag !== 'textarea')) {
          const p = paintOf(el, tag, cs, r);
          if (p !== null) n.paint = p;
        }
        // A field's border drawn red is how most pages mark a wrong value (a class such as
        // `error` or `is-invalid`, no ARIA): the border's colour goes to the engine, which
        // words only a red one.
        else if (editable || tag === 'select' || tag === 'textarea' || tag === 'input' && FIELD_ROLE[role] === true) {
          const p = borderOf(cs);
          if (p !== null) n.paint = p;
        }
        if (domId) n.dom_id = domId;
        if (testid) n.testid = testid;
        if (nameAttr) n.name_attr = nameAttr;
        // An editing host's own text is a part of its value, which says it all (the text of a
        // host with a bold word in it read "The brown fox" beside the value "The quick brown fox").
        if (text && !(editable && tag !== 'input' && tag !== 'textarea')) n.text = text;
        if (tag === 'a' && apply(m.hasAttribute, el, ['href'])) {
          // The resolved URL: what following the link would load.
          const h = apply(HREF_A, el, []) || attr(el, 'href');
          if (h) n.href = collapse(h, 400);
        }
        if (tag === 'input' || tag === 'button') { const ty = attr(el, 'type'); if (ty) n.input_type = lower(ty); }
        const ph = attr(el, 'placeholder'); if (ph) n.placeholder = collapse(ph, NAME_CAP);
        const ac = attr(el, 'autocomplete'); if (ac) n.autocomplete = ac;
        if (role === 'heading') {
          const lv = tag.length === 2 && tag[0] === 'h' ? +tag[1] : +(attr(el, 'aria-level') || 2);
          if (lv >= 1 && lv <= 9) n.level = lv;
        }
        const b = obj();
        b.x = round1(r.x + ox); b.y = round1(r.y + oy); b.w = round1(r.w); b.h = round1(r.h);
        n.bounds = b;
        // A control laid out with no area (a link around an image that has not loaded) is still
        // on the page, as Chromium's accessibility tree has it; anything else without area
        // shows nothing.
        // A transparent form control is still one: pages style a checkbox, radio or file input
        // by making it transparent over their own drawing (often inside its label), and
        // Chromium's accessibility tree keeps it; a click on it is a click on the control.
        // So is a transparent control laid over the page's drawing that takes the pointer: a
        // "cover" link over an advert or a card is what a click there follows. A transparent
        // link in the flow of the text shows nothing anyone would click.
        const pos = apply(m.getPropertyValue, cs, ['position']);
        const seeThroughControl = opacity === '0' && native &&
          (tag === 'input' || tag === 'select' || tag === 'textarea' ||
            (pos === 'absolute' || pos === 'fixed') && r.w > 0 && r.h > 0 &&
              apply(m.getPropertyValue, cs, ['pointer-events']) !== 'none');
        // An image still loading has no size yet, but it is on its way with what its alt says
        // (a page that adds a dish's "peanuts" tag as an image, just before the agent looks).
        const loadingImg = tag === 'img' && !!attr(el, 'alt') && !apply(g.imgComplete, el, []);
        n.visible = (r.w > 0 && r.h > 0 || display === 'contents' || actionable || loadingImg) && visibility !== 'hidden' && visibility !== 'collapse' &&
          (opacity !== '0' || seeThroughControl);
        n.actionable = actionable;
        n.focusable = focusable;
        n.editable = editable;
        const st = obj();
        if ((tag === 'input' || standIn !== null) && (role === 'checkbox' || role === 'radio')) {
          const box = standIn !== null ? standIn : el;
          st.checked = apply(g.inputIndeterminate, box, []) ? 'mixed' : (apply(g.inputChecked, box, []) ? 'true' : 'false');
        } else {
          const ac2 = tri(attr(el, 'aria-checked')); if (ac2) st.checked = ac2;
        }
        const pr = tri(attr(el, 'aria-pressed')); if (pr) st.pressed = pr;
        if (tag === 'option') st.selected = !!apply(g.optionSelected, el, []);
        else { const se = attr(el, 'aria-selected'); if (se === 'true' || se === 'false') st.selected = se === 'true'; }
        const ex = attr(el, 'aria-expanded'); if (ex === 'true' || ex === 'false') st.expanded = ex === 'true';
        // What a press opens (a menu item with a submenu, a button for a listbox): the sign,
        // before it is opened, that there is more behind it.
        const hp = lower(attr(el, 'aria-haspopup') || '');
        if (hp === 'true' || hp === 'menu') st.popup = 'menu';
        else if (POPUP_KIND[hp] === true) st.popup = hp;
        if (tag === 'details') st.expanded = apply(m.hasAttribute, el, ['open']);
        // The summary is what a person clicks, so it carries its details' state, as
        // Chromium's accessibility tree puts it (the details itself is rarely a line).
        if (tag === 'summary' && st.expanded === undefined) {
          const d = apply(g.parentNode, el, []);
          if (d !== null && apply(g.nodeType, d, []) === 1 && apply(g.localName, d, []) === 'details') {
            st.expanded = apply(m.hasAttribute, d, ['open']);
          }
        }
        // A modal dialog takes all input while it is open (showModal's top layer, or a page's
        // aria-modal one): what is outside it cannot be clicked until it closes.
        let modal = (role === 'dialog' || role === 'alertdialog') && attr(el, 'aria-modal') === 'true';
        if (tag === 'dialog' && !modal) { try { modal = apply(m.matches, el, [':modal']); } catch (e) { modal = false; } }
        if (modal) st.modal = true;
        // Which one of a set is the current one: aria-current, else a pager's or a nav bar's
        // item whose class alone (of its row) says active or current.
        const cur = attr(el, 'aria-current');
        if (cur !== null && cur !== '' && cur !== 'false') st.current = CURRENT_TOKEN[cur] === true ? cur : 'true';
        else if ((tag === 'li' || tag === 'a') && classSaysCurrent(el) && oneOfItsRow(el, tag)) st.current = 'true';
        // A sortable table's header says which way it sorts: the only sign, besides reading
        // every row, that a click on it took (Chromium exposes it on headers only).
        if (role === 'columnheader' || role === 'rowheader') {
          const so = attr(el, 'aria-sort');
          if (so === 'ascending' || so === 'descending' || so === 'other') st.sort = so;
        }
        if (dis || (native && disabledAbove === true)) st.disabled = true;
        if (apply(m.hasAttribute, el, ['required']) || attr(el, 'aria-required') === 'true') st.required = true;
        if (apply(m.hasAttribute, el, ['readonly']) || attr(el, 'aria-readonly') === 'true') st.readonly = true;
        if (native || editable || (role !== null && WIDGET[role] === true)) {
          const inv = invalidity(el, tag);
          if (inv !== null) st.invalid = inv;
        }
        if (el === active) st.focused = true;
        if (tag === 'input' && role !== 'checkbox' && role !== 'radio') {
          const ty = lower(apply(g.inputType, el, []) || '');
          const v = apply(g.inputValue, el, []);
          if (ty === 'password') { if (v) st.value = MASK; } else if (ty !== 'file' && (v || editable)) {
            // As typed: a trailing or doubled space is part of the value (and of a copy of it).
            st.value = apply(strSlice, v, [0, TEXT_CAP]);
          }
        } else if (tag === 'textarea') {
          st.value = apply(g.textareaValue, el, []);
          if (st.value.length > 4000) st.value = apply(strSlice, st.value, [0, 4000]);
        } else if (tag === 'select') {
          st.value = apply(g.selectValue, el, []);
        } else if (editable) {
          // As rendered: paragraphs apart, not run together as textContent has them.
          st.value = collapse(safe(g.innerText, el, ''), TEXT_CAP);
        } else if (role === 'audio' || role === 'video') {
          st.value = playerState(el);
        } else if (RANGE_ROLE[role] === true) {
          // A script-made range widget (a div with role=slider) says its value only in ARIA:
          // without it the agent saw `slider "Volume"` and no key it pressed changed a thing.
          const v = attr(el, 'aria-valuetext') || attr(el, 'aria-valuenow');
          if (v) st.value = collapse(v, TEXT_CAP);
        }
        n.state = st;
        if (inShadow) n.shadow = true;
        if (frame) n.frame = frame;
        // Only what flows as text joins a sentence: an inline-block (a button, a badge) is a
        // box of its own.
        if (at >= 0 && (display === 'inline' || display === 'contents')) {
          n.at = at;
          if (text !== '' && myPads) n.pad = myPads;
        }
        if (scripted) n.scripted = true;
        if (slot >= 0) n.slot = slot;
        if (slot >= 0 && !iframeDoc) {
          // Where the frame's viewport starts inside the iframe's box: its content box.
          const ins = obj();
          ins.x = round1(px(cs, 'border-left-width') + px(cs, 'padding-left'));
          ins.y = round1(px(cs, 'border-top-width') + px(cs, 'padding-top'));
          n.inset = ins;
        }
        if (byPointer) pointerOnly[pointerOnly.length] = myIdx;
        if (tag === 'select') listOptions(el, n);
        if (tag === 'label') {
          const c = safe(labelCtl, el, null);
          if (c) labelsFor[labelsFor.length] = [myIdx, c];
        }
        if (tag === 'input' || tag === 'select' || tag === 'textarea' || tag === 'button') apply(mapSet, controlIdx, [el, myIdx]);
        nodes[nodes.length] = n;
        els[els.length] = el;
        frames[frames.length] = [ox, oy];
      }
      // Children, pushed in reverse so they pop in document order.
      const kids = arr();
      if (iframeDoc) {
        const inner = apply(g.documentElement, iframeDoc, []);
        if (inner) {
          frameCount++;
          // Content box of the iframe: its border-box origin plus its borders.
          const bl = +apply(strSlice, apply(m.getPropertyValue, cs, ['border-left-width']), [0, -2]) || 0;
          const bt = +apply(strSlice, apply(m.getPropertyValue, cs, ['border-top-width']), [0, -2]) || 0;
          kids[0] = [inner, myIdx, frameCount, ox + r.x + bl, oy + r.y + bt, inShadow, iframeDoc, false, -1, axh, disDown];
        }
      } else if (tag !== 'select') {
        // A select's options are listed on its record, not walked.
        // An element laid out inline inside its parent's sentence passes its place in it on
        // to what it wraps when it is not reported itself.
        const inlineHere = display === 'contents' || display === 'inline';
        const pass = report && text !== '' ? -1 : (inlineHere ? at : -1);
        const slotted = tag === 'slot';
        // What a closed <details> holds past its summary, and what a box with
        // content-visibility:hidden holds, is not rendered (Chromium's accessibility tree
        // leaves it out), though it keeps its styles: no ref may point at it.
        const closed = tag === 'details' && !apply(m.hasAttribute, el, ['open']);
        const unrendered = apply(m.getPropertyValue, cs, ['content-visibility']) === 'hidden';
        let summarySeen = false;
        const fk = unrendered ? arr() : flatKids(el);
        for (let i = 0; i < fk.length; i++) {
          const c = fk[i];
          if (apply(g.nodeType, c, []) !== 1) continue;
          // Only its first summary child is the summary; the rest is its body.
          if (closed) {
            if (summarySeen || kindOf(c, apply(g.localName, c, [])) !== 'summary') continue;
            summarySeen = true;
          }
          let cat = pass;
          if (report && myMarks && apply(mapHas, myMarks, [c])) cat = apply(mapGet, myMarks, [c]);
          // Assigned nodes of a slot are light DOM; its fallback content is in the shadow tree.
          const shadowKid = slotted ? apply(g.nodeType, apply(getRootNode, c, []), []) === 11 : (inShadow || !!sr);
          kids[kids.length] = [c, myIdx, frame, ox, oy, shadowKid, doc, pointer, cat, axh, disDown];
        }
      }
      for (let i = kids.length - 1; i >= 0; i--) stack[stack.length] = kids[i];
      } catch (err) { errors++; }
    }
    for (let i = 0; i < labelsFor.length; i++) {
      const ci = apply(mapGet, controlIdx, [labelsFor[i][1]]);
      if (ci !== undefined) nodes[labelsFor[i][0]].label_for = ci;
    }
    // A pointer region with an actionable element inside is that element's.
    if (pointerOnly.length) {
      const below = arr();
      for (let i = nodes.length - 1; i >= 0; i--) {
        const p = nodes[i].parent;
        if (p !== undefined && (below[i] === true || (nodes[i].actionable && nodes[i].visible))) below[p] = true;
      }
      for (let i = 0; i < pointerOnly.length; i++) {
        const k = pointerOnly[i];
        if (below[k] === true) { nodes[k].actionable = false; nodes[k].scripted = undefined; nodes[k].name = undefined; }
      }
    }
    // An element made clickable by a listener around exactly one control that says the same
    // (a calendar's day cell around its day link, a "Close" wrapper around its button, a row
    // around its checkbox) is that control's: a click on the control reaches the wrapper's
    // listener too, and two refs for one thing cost tokens and make the agent choose.
    {
      const count = arr(), only = arr();
      for (let i = nodes.length - 1; i >= 0; i--) {
        const p = nodes[i].parent;
        if (p === undefined) continue;
        const own = nodes[i].actionable && nodes[i].visible ? 1 : 0;
        const c = (count[i] || 0) + own;
        if (c === 0) continue;
        const prev = count[p] || 0;
        count[p] = prev + c;
        only[p] = prev === 0 && c === 1 ? (own === 1 ? i : only[i]) : -1;
      }
      for (let i = 0; i < nodes.length; i++) {
        const n = nodes[i];
        if (n.scripted !== true || !n.actionable || count[i] !== 1 || only[i] < 0) continue;
        const d = nodes[only[i]];
        const a = lower(n.name || ''), b = lower(d.name || '');
        if (a === '' || a === b) { n.actionable = false; n.scripted = undefined; }
      }
    }
    lastWalk = { id: id, els: els, frames: frames };
    const out = obj();
    out.walk_id = id;
    if (mySlot >= 0) out.slot = mySlot;
    out.dom_quiet_ms = domQuietMs();
    out.change_quiet_ms = changeQuietMs();
    out.url = apply(g.URL, topDoc, []);
    out.title = collapse(apply(g.title, topDoc, []), 300);
    if (safe(g.contentType, topDoc, '') === 'application/pdf') {
      out.pdf = true;
      // The viewer's wrapper has no title: the file's name is what the tab strip shows.
      if (!out.title) out.title = collapse(fileName(out.url), 300);
    }
    out.nodes = nodes;
    const vp = obj();
    vp.w = apply(g.innerWidth, G, []); vp.h = apply(g.innerHeight, G, []);
    vp.scroll_x = apply(g.scrollX, G, []); vp.scroll_y = apply(g.scrollY, G, []);
    vp.dpr = apply(g.dpr, G, []);
    out.viewport = vp;
    out.visited = visited;
    out.truncated = truncated;
    out.errors = errors;
    out.walk_us = mathRound((now() - t0) * 1000);
    return out;
  }

  // Arms the key guard on `target` if focus is within it; otherwise says where focus is.
  function armGuard(target, res) {
    const da = deepActive();
    guardEl = null; guardTripped = false; guardWent = null; typed = 0; blocked = 0;
    if (!flatContains(target, da.el)) {
      res.focus = describe(da.el);
    } else if (da.remote) {
      // Keys for a frame of another site never reach this renderer: nothing to guard or count.
      res.remote = true;
    } else {
      guardEl = target;
      guardSet = now();
    }
  }
  const perf = G.performance, entriesByType = method(G.Performance.prototype, 'getEntriesByType');
  const resEnd = getter(G.PerformanceResourceTiming.prototype, 'responseEnd');
  const loadEnd = getter(G.PerformanceNavigationTiming.prototype, 'loadEventEnd');

  // ---- A PDF the tab shows ----
  //
  // Chromium's viewer draws a PDF in a frame of its own: the document the tab holds is an empty
  // wrapper whose text is nothing. The bytes come again from the same address, through the
  // HTTP cache where the response allowed it, with the page's cookies (same origin), so the
  // browser can read the text out of them. Synchronous on purpose: an answer, not a promise.
  const XHR = G.XMLHttpRequest && G.XMLHttpRequest.prototype;
  const xhr = XHR ? {
    open: method(XHR, 'open'), send: method(XHR, 'send'), mime: method(XHR, 'overrideMimeType'),
    status: getter(XHR, 'status'), text: getter(XHR, 'responseText'),
  } : null;
  const btoaFn = G.btoa;
  function pdfBytes(cap) {
    const out = obj();
    out.pdf = safe(g.contentType, G.document, '') === 'application/pdf';
    if (!out.pdf || !xhr) return out;
    const x = new G.XMLHttpRequest();
    apply(xhr.open, x, ['GET', apply(g.URL, G.document, []), false]);
    // Each byte as one character (U+F7xx for the high ones), not decoded as text.
    apply(xhr.mime, x, ['text/plain; charset=x-user-defined']);
    apply(xhr.send, x, []);
    out.status = apply(xhr.status, x, []);
    const t = apply(xhr.text, x, []) || '';
    const max = cap > 0 ? cap : 50 * 1024 * 1024;
    const n = mathMin(t.length, max);
    out.truncated = t.length > max;
    const parts = arr(), chunk = arr();
    for (let i = 0; i < n; i++) {
      chunk[chunk.length] = apply(strCharCodeAt, t, [i]) & 0xFF;
      if (chunk.length === 8192 || i === n - 1) {
        parts[parts.length] = apply(fromCharCode, null, chunk);
        chunk.length = 0;
      }
    }
    out.data = btoaFn(apply(arrJoin, parts, ['']));
    return out;
  }
  // The last segment of a URL's path (a file's name), percent-decoded where it decodes.
  function fileName(u) {
    let p = u;
    let i = apply(strIndexOf, p, ['#']);
    if (i >= 0) p = apply(strSlice, p, [0, i]);
    i = apply(strIndexOf, p, ['?']);
    if (i >= 0) p = apply(strSlice, p, [0, i]);
    p = apply(strSlice, p, [apply(strLastIndexOf, p, ['/']) + 1]);
    try { return decodeUri(p); } catch (e) { return p; }
  }

  // How long since the last request of this document finished (the document's own load
  // included), and whether it has finished loading. Requests still open are not visible
  // from here; the app combines this with what the browser knows.
  function netState() {
    const out = obj0();
    let last = 0;
    const nav = apply(entriesByType, perf, ['navigation']);
    if (nav.length) last = mathMax(last, apply(loadEnd, nav[0], []) || 0);
    const res = apply(entriesByType, perf, ['resource']);
    for (let i = 0; i < res.length; i++) last = mathMax(last, apply(resEnd, res[i], []) || 0);
    out.complete = apply(g.readyState, G.document, []) === 'complete';
    out.quiet_ms = mathRound(mathMax(0, now() - last));
    return out;
  }
  // The sign-in the human is submitting ({"op":"login"}): the non-empty password of the form
  // holding focus (else the page's first non-empty one) and the last non-empty text or email
  // input before it in that form. Asked only by the browser for its "save this login?" offer
  // in the human's window, never by the agent's tools, and never part of a walk (walks leave
  // password values out).
  function loginValues() {
    const out = obj0();
    const list = apply(m.querySelectorAll, G.document, ['input']);
    const n = apply(g.nodeListLength, list, []);
    const a = deepActive().el;
    const activeForm = a && kindOf(a, apply(g.localName, a, [])) !== 'iframe' ? safe(g.inputForm, a, null) : null;
    let pw = null, pwForm = null, pwAt = -1;
    const all = [];
    for (let i = 0; i < n; i++) {
      const el = apply(m.nodeListItem, list, [i]);
      all[all.length] = el;
      if (lower(apply(g.inputType, el, []) || '') !== 'password') continue;
      if (!apply(g.inputValue, el, [])) continue;
      const f = safe(g.inputForm, el, null);
      if (pw === null || (activeForm !== null && f === activeForm && pwForm !== activeForm)) {
        pw = el; pwForm = f; pwAt = i;
      }
    }
    if (pw === null) return out;
    out.password = apply(g.inputValue, pw, []);
    for (let i = pwAt - 1; i >= 0; i--) {
      const el = all[i];
      const t = lower(apply(g.inputType, el, []) || 'text');
      if (t !== 'text' && t !== 'email' && t !== 'tel') continue;
      if (safe(g.inputForm, el, null) !== pwForm) continue;
      const v = apply(g.inputValue, el, []);
      if (v) { out.username = v; break; }
    }
    return out;
  }

  function inputState() {
    const out = obj0();
    for (let i = 0; i < COUNTED.length; i++) out[COUNTED[i]] = inputCounts[COUNTED[i]];
    out.doc = docToken;
    // Counts taken while the counters were erased missed input: the app cannot confirm or
    // void what it sent then.
    if (deafened()) out.deaf = true;
    const d = G.document;
    out.ready = !!apply(g.documentElement, d, []) && (!!apply(g.body, d, []) || apply(g.readyState, d, []) !== 'loading');
    if (apply(entriesByType, perf, ['paint']).length) out.painted = true;
    if (aimRemote) out.remote = true;
    if (aimEl !== null && landed !== null) {
      const l = obj0();
      l.inside = landedInside;
      if (!l.inside) {
        if (landedDesc === null) landedDesc = describe(landed);
        l.what = landedDesc;
        if (pressInside) l.pressed = true;
      }
      out.landed = l;
    }
    if (guardEl !== null) {
      const gs = obj0();
      gs.typed = typed;
      gs.blocked = blocked;
      if (guardWent !== null) gs.went = guardWent;
      out.guard = gs;
    }
    out.voided = voided;
    return out;
  }

  function frameOffset(idx) {
    const f = lastWalk.frames[idx];
    return f ? f : [0, 0];
  }

  // Every check comes before the first change, so a refusal (an `error` reply other than
  // "walker exception") means the page saw nothing: no focus moved, no option was touched.
  // Brings the point (x, y) of `el` (CSS px from its top-left) to the middle of its view: the
  // element is centred first (which also scrolls outer frames), then what is left moves each
  // box that scrolls between it and the view, innermost first, and last the document. A point
  // no box can bring into view stays where it is.
  function scrollPointToMiddle(el, x, y) {
    const opts = obj(); opts.block = 'center'; opts.inline = 'center'; opts.behavior = 'instant';
    apply(m.scrollIntoView, el, [opts]);
    const doc = apply(g.ownerDocument, el, []);
    const view = (doc && apply(g.defaultView, doc, [])) || G;
    const r = rectOf(el);
    let dx = r.x + x - apply(g.innerWidth, view, []) / 2;
    let dy = r.y + y - apply(g.innerHeight, view, []) / 2;
    for (let n = flatParent(el), i = 0; n && i < 256 && (dx !== 0 || dy !== 0); n = flatParent(n), i++) {
      if (apply(g.nodeType, n, []) !== 1) break;
      const ln = apply(g.localName, n, []);
      if (ln === 'body' || ln === 'html') break;
      const cs = styleOf(n);
      const ox = apply(m.getPropertyValue, cs, ['overflow-x']), oy = apply(m.getPropertyValue, cs, ['overflow-y']);
      if ((ox === 'auto' || ox === 'scroll') && dx !== 0) {
        const before = safe(g.scrollLeft, n, 0);
        safeSet(s.scrollLeft, n, before + dx);
        dx -= safe(g.scrollLeft, n, 0) - before;
      }
      if ((oy === 'auto' || oy === 'scroll') && dy !== 0) {
        const before = safe(g.scrollTop, n, 0);
        safeSet(s.scrollTop, n, before + dy);
        dy -= safe(g.scrollTop, n, 0) - before;
      }
    }
    if (dx !== 0 || dy !== 0) {
      try { apply(m.scrollBy, view, [dx, dy]); } catch (e) { /* a view that does not scroll */ }
    }
  }

  function elementOp(req) {
    const res = obj();
    if (typeof req.walk_id !== 'number' || typeof req.idx !== 'number' || typeof req.do !== 'string') {
      res.error = 'bad request';
      res.detail = 'an element op needs a numeric walk_id and idx and a string do';
      return res;
    }
    if (req.walk_id !== lastWalk.id) {
      res.error = 'stale';
      res.detail = 'the page was walked again since walk ' + req.walk_id + ' (now ' + lastWalk.id + ')';
      return res;
    }
    const el = lastWalk.els[req.idx];
    if (!el) { res.error = 'no such element'; res.detail = 'walk ' + req.walk_id + ' has no element ' + req.idx; return res; }
    if (!apply(g.isConnected, el, [])) { res.error = 'detached'; res.detail = 'the element was removed from the page'; return res; }
    const what = req.do;
    const tag = kindOf(el, apply(g.localName, el, []));
    if (what === 'scroll') {
      const opts = obj(); opts.block = 'center'; opts.inline = 'center'; opts.behavior = 'instant';
      apply(m.scrollIntoView, el, [opts]);
    } else if (what === 'scrollto') {
      if (typeof req.x !== 'number' || typeof req.y !== 'number') {
        res.error = 'bad request';
        res.detail = 'scrollto needs numeric x and y';
        return res;
      }
      scrollPointToMiddle(el, req.x, req.y);
    } else if (what === 'focus') {
      focusEl(el);
      lastFocused = el;
    } else if (what === 'hit') {
      if (typeof req.x !== 'number' || typeof req.y !== 'number') {
        res.error = 'bad request';
        res.detail = 'hit needs numeric x and y';
        return res;
      }
      // Arms the aim, which only records where the next pointer event lands: no change to
      // the page.
      let h = hitAt(req.x, req.y);
      landed = null; landedDown = false; landedDesc = null; aimRemote = false; pressInside = false; landedInside = false;
      landedWheel = false;
      let ok = reaches(el, h.el);
      if (!ok) {
        // Another point of the element may be clear (a banner over half of it), or it moved:
        // try points across its visible box as it is now, nearest the asked point first.
        const r0 = rectOf(el), off = frameOffset(req.idx);
        const x0 = mathMax(r0.x + off[0], 0), y0 = mathMax(r0.y + off[1], 0);
        const x1 = mathMin(r0.x + off[0] + r0.w, apply(g.innerWidth, G, [])), y1 = mathMin(r0.y + off[1] + r0.h, apply(g.innerHeight, G, []));
        const pts = arr();
        if (x1 - x0 >= 1 && y1 - y0 >= 1) {
          for (let i = 1; i <= 4; i++) {
            for (let j = 1; j <= 4; j++) {
              const px = G.Math.floor(x0 + (x1 - x0) * i / 5), py = G.Math.floor(y0 + (y1 - y0) * j / 5);
              pts[pts.length] = [px, py, (px - req.x) * (px - req.x) + (py - req.y) * (py - req.y)];
            }
          }
        }
        // Nearest first, by selection (no Array.prototype.sort: the page may have replaced it).
        for (let k = 0; k < pts.length && !ok; k++) {
          let best = k;
          for (let q = k + 1; q < pts.length; q++) if (pts[q][2] < pts[best][2]) best = q;
          const t = pts[k]; pts[k] = pts[best]; pts[best] = t;
          const h2 = hitAt(pts[k][0], pts[k][1]);
          if (reaches(el, h2.el)) { ok = true; h = h2; res.x = pts[k][0]; res.y = pts[k][1]; }
        }
      }
      if (ok) {
        aimEl = el;
        aimRemote = h.remote;
        if (h.remote) res.remote = true;
      } else {
        aimEl = null;
        res.cover = describe(h.el);
      }
    } else if (what === 'over') {
      if (typeof req.x !== 'number' || typeof req.y !== 'number') {
        res.error = 'bad request';
        res.detail = 'over needs numeric x and y';
        return res;
      }
      const h = hitAt(req.x, req.y);
      if (!reaches(el, h.el)) res.cover = describe(h.el);
    } else if (what === 'focused') {
      const da = deepActive();
      if (!flatContains(el, da.el)) res.focus = describe(da.el);
      else if (da.remote) res.remote = true;
    } else if (what === 'clear') {
      // Only what a user could type into: an enabled, writable text-like input or textarea,
      // or editable content; `:read-write` matches exactly those. A checkbox's value or a
      // read-only field is never rewritten behind the page's back.
      if (!apply(m.matches, el, [':read-write'])) {
        res.error = 'not editable';
        res.detail = 'the element is not a field a user could type into';
        return res;
      }
      focusEl(el);
      lastFocused = el;
      if (tag === 'input') apply(s.inputValue, el, ['']);
      else if (tag === 'textarea') apply(s.textareaValue, el, ['']);
      else apply(s.textContent, el, ['']);
      fire(el, 'input');
      fire(el, 'change');
    } else if (what === 'select') {
      if (tag !== 'select') { res.error = 'not a select'; res.detail = 'the element is not a <select>'; return res; }
      // A disabled select keeps its ref (flagged disabled) but no user can change it.
      if (apply(m.matches, el, [':disabled'])) { res.error = 'not editable'; res.detail = 'the select is disabled'; return res; }
      const want = req.values;
      if (!isArray(want)) { res.error = 'bad request'; res.detail = 'select needs values, an array of strings'; return res; }
      // The select's own list of options (its option children and its optgroups' option
      // children, in tree order), never its child nodes: a select written over several lines
      // has whitespace text (and maybe comments) between its options, and Element getters
      // throw "Illegal invocation" on those.
      const coll = apply(g.selectOptions, el, []);
      const n = apply(g.optionsLength, coll, []);
      const opts = arr(), values = arr(), labels = arr(), texts = arr();
      for (let i = 0; i < n; i++) {
        const o = apply(m.collectionItem, coll, [i]);
        opts[i] = o;
        values[i] = apply(g.optionValue, o, []);
        labels[i] = collapse(apply(g.optionLabel, o, []), NAME_CAP);
        texts[i] = collapse(apply(g.textContent, o, []), NAME_CAP);
      }
      // Each wanted string picks the options whose value it is; failing that, those whose
      // label as shown (the label attribute, else the text) or whose text it is.
      const hit = arr();
      let matched = 0;
      for (let k = 0; k < want.length; k++) {
        const w = want[k];
        let byValue = false;
        for (let i = 0; i < n; i++) {
          if (values[i] !== w) continue;
          byValue = true;
          if (hit[i] !== true) { hit[i] = true; matched++; }
        }
        if (byValue) continue;
        for (let i = 0; i < n; i++) {
          if ((labels[i] === w || texts[i] === w) && hit[i] !== true) { hit[i] = true; matched++; }
        }
      }
      if (!matched) {
        res.error = 'no option matches';
        res.detail = 'none of the ' + n + ' options has that value or label';
        return res;
      }
      // Only now, with a match in hand, does the select change.
      for (let i = 0; i < n; i++) apply(s.optionSelected, opts[i], [hit[i] === true]);
      fire(el, 'input');
      fire(el, 'change');
      res.matched = matched;
    } else if (what === 'value') {
      const ty = tag === 'input' ? lower(apply(g.inputType, el, []) || '') : '';
      if (PICKED[ty] !== true || apply(m.matches, el, [':disabled'])
          || (ty !== 'range' && ty !== 'color' && apply(m.hasAttribute, el, ['readonly']))) {
        res.error = 'not editable';
        res.detail = 'the element is not an enabled date, time, color or range input';
        return res;
      }
      if (typeof req.value !== 'string') { res.error = 'bad request'; res.detail = 'value needs a string value'; return res; }
      const old = apply(g.inputValue, el, []);
      apply(s.inputValue, el, [req.value]);
      const now = apply(g.inputValue, el, []);
      // The field sanitises what it cannot hold to "" (a range to its default): that value
      // was refused, and the field gets its own back, with no event fired. A range moved to
      // the nearest step or bound took a number, and says which.
      // A number only as HTML reads one: a range sets " 5", "+5", "5." or "0x10" (which
      // Number() takes) to its default, which is no step nearest to anything.
      const num = +req.value;
      const isNum = ty === 'range' && htmlFloat(req.value) && num !== 1 / 0 && num !== -1 / 0;
      // A value it takes it may keep in its own form: a color in lower case (`#FF8800` is
      // `#ff8800`; one it refuses is `#000000`), a date and time normalised; a date or time
      // it refuses is "".
      const took = now === req.value || (ty === 'range' ? isNum
        : ty === 'color' ? now === lower(req.value) : now !== '');
      if (!took) {
        apply(s.inputValue, el, [old]);
        res.error = 'value refused';
        res.detail = ty;
        return res;
      }
      fire(el, 'input');
      fire(el, 'change');
      res.value = now;
    } else if (what === 'selecttext') {
      if (req.text != null && typeof req.text !== 'string') { res.error = 'bad request'; res.detail = 'selecttext needs a string text or none'; return res; }
      const got = selectText(el, tag, req.text == null ? '' : req.text, req.page === true);
      if (got === null) { res.error = 'text not found'; return res; }
      res.text = apply(strSlice, got, [0, 4000]);
      res.truncated = got.length > 4000;
    } else if (what === 'text') {
      const cap = typeof req.cap === 'number' && req.cap > 0 ? req.cap : 4000;
      // A text field's text is its value: innerText has nothing of it, so reading a long
      // textarea (a snapshot shows the start of its value) gave nothing. A password stays masked.
      const kind = kindOf(el, apply(g.localName, el, []));
      const ty = kind === 'input' ? lower(apply(g.inputType, el, []) || 'text') : '';
      let t;
      if (kind === 'textarea') t = apply(g.textareaValue, el, []);
      else if (kind === 'input' && ty === 'password') t = apply(g.inputValue, el, []) ? MASK : '';
      else if (kind === 'input' && ty !== 'checkbox' && ty !== 'radio' && ty !== 'file') t = apply(g.inputValue, el, []);
      // Text drawn at size zero is not what a person sees (a face-down card's value): the
      // snapshot names nothing by it, and reading the element says the same. A container
      // that sets size zero only to close the gaps between children of their own size (a nav
      // bar's links) reads as usual.
      else if (zeroFont(styleOf(el)) && !sizedText(el, { n: 0 }, 0)) t = '';
      else t = safe(g.innerText, el, null) ?? apply(g.textContent, el, []);
      res.text = apply(strSlice, t || '', [0, cap]);
      res.truncated = (t || '').length > cap;
    } else if (what !== 'rect') {
      res.error = 'unknown element op';
      res.detail = 'there is no element op ' + stringify(what);
      return res;
    }
    const r = rectOf(el), off = frameOffset(req.idx), b = obj();
    b.x = round1(r.x + off[0]); b.y = round1(r.y + off[1]); b.w = round1(r.w); b.h = round1(r.h);
    res.ok = true;
    res.bounds = b;
    const vp = obj();
    vp.w = apply(g.innerWidth, G, []); vp.h = apply(g.innerHeight, G, []);
    vp.sx = apply(g.scrollX, G, []); vp.sy = apply(g.scrollY, G, []);
    res.viewport = vp;
    const sc = obj();
    sc.x = safe(g.scrollLeft, el, 0); sc.y = safe(g.scrollTop, el, 0);
    res.scroll = sc;
    return res;
  }

  // Input types whose value has a selection (setSelectionRange throws on the others).
  const TEXTLIKE = obj0();
  for (const t of ['text', 'search', 'url', 'tel', 'password']) TEXTLIKE[t] = true;
  // Selects `want` (white space compared as one space; exact case first, then any case) in
  // the element's text, or in its document's body with `page`, as a person dragging across
  // it would (the page sees selectionchange); no `want` selects all of it. In a text field
  // the selection is of its value. Answers what is selected, or null when the text is not
  // there (nothing changed).
  function selectText(el, tag, want, page) {
    const ty = tag === 'input' ? lower(apply(g.inputType, el, []) || 'text') : '';
    if (!page && (tag === 'textarea' || tag === 'input' && TEXTLIKE[ty] === true)) {
      const v = tag === 'textarea' ? apply(g.textareaValue, el, []) : apply(g.inputValue, el, []);
      let a = 0, b = v.length;
      // A password is never searched (each answer would say whether a guess is in it), and
      // what is selected of it is not said.
      if (ty === 'password') {
        if (want !== '') return null;
        focusEl(el);
        apply(m.inputSetSel, el, [a, b]);
        return MASK;
      }
      if (want !== '') {
        a = apply(strIndexOf, v, [want]);
        if (a < 0) a = apply(strIndexOf, lower(v), [lower(want)]);
        if (a < 0) return null;
        b = a + want.length;
      }
      focusEl(el);
      apply(tag === 'textarea' ? m.textareaSetSel : m.inputSetSel, el, [a, b]);
      return apply(strSlice, v, [a, b]);
    }
    const doc = apply(g.ownerDocument, el, []);
    const scope = page ? (apply(g.body, doc, []) || apply(g.documentElement, doc, [])) : el;
    const sel = apply(m.getSelection, doc, []);
    const range = apply(m.createRange, doc, []);
    if (want === '') {
      apply(m.rangeSelectContents, range, [scope]);
    } else {
      // The scope's text as one string of collapsed white space, and for each of its
      // characters the text node and offset it came from.
      const nodes = arr(), offs = arr();
      let flat = '', space = true;
      const stack = arr();
      stack[0] = scope;
      while (stack.length) {
        const n = stack[stack.length - 1];
        stack.length = stack.length - 1;
        const nt = apply(g.nodeType, n, []);
        if (nt === 3) {
          const v = apply(g.nodeValue, n, []) || '';
          for (let i = 0; i < v.length; i++) {
            const ch = apply(strCharCodeAt, v, [i]);
            const ws = isSpace(ch);
            if (ws && space) continue;
            flat += ws ? ' ' : v[i];
            nodes[nodes.length] = n; offs[offs.length] = i;
            space = ws;
          }
          continue;
        }
        if (nt !== 1) continue;
        const k = kindOf(n, apply(g.localName, n, []));
        // What is not drawn, and what is text only in the markup (a select's options, a
        // textarea's initial text), is not there to be selected.
        if (SKIP[k] || k === 'select' || k === 'datalist' || k === 'textarea') continue;
        if (n !== scope && apply(m.getPropertyValue, styleOf(n), ['display']) === 'none') continue;
        const kids = arr();
        for (let c = apply(g.firstChild, n, []); c; c = apply(g.nextSibling, c, [])) kids[kids.length] = c;
        for (let j = kids.length - 1; j >= 0; j--) stack[stack.length] = kids[j];
      }
      const needle = collapse(want, 1e9);
      if (needle === '') return null;
      let at = apply(strIndexOf, flat, [needle]);
      if (at < 0) {
        const lf = lower(flat), ln = lower(needle);
        if (lf.length === flat.length && ln.length === needle.length) at = apply(strIndexOf, lf, [ln]);
      }
      if (at < 0) return null;
      const end = at + needle.length - 1;
      apply(m.rangeSetStart, range, [nodes[at], offs[at]]);
      apply(m.rangeSetEnd, range, [nodes[end], offs[end] + 1]);
    }
    apply(m.selRemoveAll, sel, []);
    apply(m.selAddRange, sel, [range]);
    return apply(m.selToString, sel, []);
  }

  function failure(code, detail) {
    const out = obj();
    out.error = code;
    if (detail !== undefined) out.detail = detail;
    return out;
  }

  // The wire format: one request (a JSON object) in, one reply (JSON text) out. Rust's view
  // of it is engine/src/protocol.rs (`Request`, `ElementOp`, the reply types, `WalkerError`);
  // keep the two in agreement. Absent optional fields take the defaults shown.
  //
  //   {"op":"walk","cap":N,"sub":B}  N = element cap (optional, default 25000); B (optional,
  //                             default false): walk as a frame of another origin, for the
  //                             app to place under its <iframe>
  //       -> a Walk (engine/src/record.rs); with "sub", {"reached":true,"slot":I} instead
  //          when the parent's walker walks this document itself, else the Walk has "slot":I;
  //          I is this window's index among its parent's frames. A Walk marks each <iframe>
  //          with "slot" (its frame's index in its window's frames) and, when it cannot enter
  //          it, "inset" (where the frame's viewport starts in the iframe's box)
  //   {"op":"el","walk_id":W,"idx":I,"do":D,...}  on element I of walk W, which must be the
  //                             latest walk (else "stale"); D is one of
  //       "rect"                just report where the element is
  //       "scroll"              scroll it to the centre of the view
  //       "focus"               focus it
  //       "selecttext","text":S,"page":B  select S (white space as one space; any case if
  //                             not exactly) in the element's text, or in its document's body
  //                             with B, or in a text field's value; no S selects all of it
  //                             -> "text" what is selected; "text not found" changes nothing
  //       "clear"               empty an editable field; fires input and change
  //       "select","values":[S,...]  select the options whose value is S (else whose label or
  //                             text is S) and deselect the rest; fires input and change;
  //                             a disabled select is refused ("not editable")
  //       "value","value":V     set an input a user sets through a picker (date, time,
  //                             datetime-local, month, week, color, range) to V as the picker
  //                             would; fires input and change. A value the field would sanitise
  //                             away is refused ("value refused", detail: the input type) and
  //                             the field keeps its value; a range takes the nearest value it
  //                             allows. -> "value": the value it holds now
  //       "text","cap":N        its innerText, cut at N (optional, default 4000)
  //       "hit","x":X,"y":Y     what is at (X,Y) of the top-level viewport (through open shadow
  //                             roots and same-origin frames): when the element or something
  //                             inside it (or a label of it), it becomes the aim whose first
  //                             pointer event "inputs" reports; else, if another point of its
  //                             visible box is clear, "x","y" name that point (and it is the
  //                             aim); else "cover" describes what is at (X,Y)
  //       "over","x":X,"y":Y    whether (X,Y) of the top-level viewport is over the element
  //                             (as for hit); if not, "cover" describes what is there. No
  //                             other point is tried, no aim is armed
  //       "focused"             whether keyboard focus is within the element: if not, "focus"
  //                             describes where it is (changes nothing)
  //       -> {"ok":true,"bounds":{"x","y","w","h"},"viewport":{"w","h"}}, bounds in CSS px
  //          relative to the top-level viewport; plus "matched":N (options selected) for
  //          select, "text":T,"truncated":B for text, "x","y", "cover":D or "remote":true for hit,
  //          "focus":D or "remote":true for focused. D = {"role":R,"name":N}, page text.
  //   {"op":"text","cap":N}     N optional, default 20000
  //       -> {"text":T,"truncated":B}  the body's innerText
  //   {"op":"inputs"}
  //       -> {"pointerdown":N,"pointerup":N,"pointermove":N,"keydown":N,"keyup":N,
  //          "keypress":N,"wheel":N,  trusted events this window and its instrumented frames
  //          have seen, by type; "doc":T, a token new with each document; "ready":B, the
  //          document has a body (or finished parsing); "remote":true when the aim is a frame
  //          of another site; "landed":{"inside":B,"what":D} where the aim's first pointer
  //          event went (a pointerdown wins over a move, and a pointerup, click or contextmenu
  //          that goes elsewhere wins over both); "guard":{"typed":N,"blocked":N,
  //          "went":D} while a guard is up (characters let through and stopped, where focus
  //          went); "voided":N, events stopped by voids; "deaf":true when the page had
  //          erased the counters (document.open) since the last look, now attached again}
  //   {"op":"void","kind":K,"n":N,"until":MS}  if the count of K is still N, the wall clock
  //       is not past MS (epoch ms) and the counters were not erased meanwhile ("deaf"), stop
  //       every trusted input created until now that arrives in the next 10 minutes
  //       -> the "inputs" answer plus "void":B, whether it did, and "late":B, past MS
  //   {"op":"guard"}            if focus is within the element the last focus or clear op
  //                             focused (if no trusted press or key came since; else the focused
  //                             element), stop every key that arrives once focus has left it,
  //                             until "unguard" (or 30 s)
  //       -> {"ok":true} plus "focus":D (where focus is instead; no guard is up) or
  //          "remote":true (focus is in a frame of another site; no guard is up)
  //   {"op":"unguard"}          lifts the guard -> the "inputs" answer, taken before lifting
  //   {"op":"net"}
  //       -> {"complete":B,"quiet_ms":N}  the document finished loading; ms since its last
  //          request (its own load included) finished. Requests still open are not seen.
  //   {"op":"pid"}              never reaches the walker: app/src/renderer.rs answers it with
  //                             the renderer's process id as a bare JSON number
  //
  // A failure is {"error":CODE} or {"error":CODE,"detail":TEXT}, CODE one of:
  //   "bad request"        not JSON, not an object, or a field of the wrong type
  //   "unknown op"         op is none of the above
  //   "stale"              walk_id is not the latest walk (detail: which walks)
  //   "no such element"    the walk has no element idx
  //   "detached"           the element has left the document
  //   "unknown element op" do is none of the above
  //   "not editable"       clear on something a user could not type into; select on a
  //                        disabled select; value on a field that is not enabled
  //   "not a select"       select on something other than an HTML <select>
  //   "no option matches"  no option has any of the values as its value, label or text
  //   "value refused"      value on a field that does not take V (detail: its input type)
  //   "text not found"     selecttext's text is not in the element (or page)
  //   "walker exception"   the walker threw (detail: the message)
  // Every code but "walker exception" is a refusal made before anything changed; after an
  // exception, an element op may have been partly done.
  return function handle(reqJson, extra) {
    let req;
    try { req = parse(reqJson); } catch (e) { return stringify(failure('bad request', 'not JSON')); }
    if (req === null || typeof req !== 'object' || isArray(req)) {
      return stringify(failure('bad request', 'not a JSON object'));
    }
    // A field the request leaves out must read as undefined, not as whatever the page put
    // on Object.prototype.
    setProto(req, null);
    const op = req.op;
    let out;
    try {
      if (op === 'hook') {
        // The app's native notify, handed over once as the walker is installed.
        if (notify === null && typeof extra === 'function') notify = extra;
        out = obj0();
        out.ok = true;
      } else if (op === 'walk') out = walk(typeof req.cap === 'number' ? req.cap : 0, req.sub === true);
      else if (op === 'el') out = elementOp(req);
      else if (op === 'inputs') out = inputState();
      else if (op === 'void') {
        if (typeof req.kind !== 'string' || inputCounts[req.kind] === undefined || typeof req.n !== 'number'
            || typeof req.until !== 'number') {
          out = failure('bad request', 'void needs a counted kind, a count n and an until');
        } else {
          // Only while none of the input has arrived: voiding half a click would leave the page
          // with a press and no release. And only while the browser still waits for this
          // answer: past `until` it has told the agent the input may still arrive, so it must.
          const late = wallNow() > req.until;
          // Nor while the counters were erased (document.open): the input may be arriving
          // uncounted, and the browser tells the agent it may have been received, so it must
          // not be stopped now that the counters are back.
          const deaf = deafened();
          const none = !late && !deaf && inputCounts[req.kind] === req.n;
          if (none) { voidAt = now(); voidSet = voidAt; }
          out = inputState();
          if (deaf) out.deaf = true;
          out.void = none;
          out.late = late;
        }
      } else if (op === 'guard') {
        const target = lastFocused !== null && apply(g.isConnected, lastFocused, []) ? lastFocused : deepActive().el;
        out = obj0();
        if (target) armGuard(target, out); else out.focus = describe(null);
        out.ok = true;
      } else if (op === 'net') out = netState();
      else if (op === 'login') out = loginValues();
      else if (op === 'unguard') {
        out = inputState();
        guardEl = null; guardTripped = false;
      }
      else if (op === 'pdf') out = pdfBytes(typeof req.cap === 'number' ? req.cap : 0);
      else if (op === 'text') {
        const cap = typeof req.cap === 'number' && req.cap > 0 ? req.cap : 20000;
        const body = apply(g.body, G.document, []);
        const t = (body && safe(g.innerText, body, '')) || '';
        out = obj();
        out.text = apply(strSlice, t, [0, cap]);
        out.truncated = t.length > cap;
      } else out = failure('unknown op');
    } catch (e) {
      // Read the message without running a getter: a thrown value need not be an Error.
      const d = e !== null && typeof e === 'object' ? gopd(e, 'message') : undefined;
      out = failure('walker exception', d && typeof d.value === 'string' ? d.value : 'a non-Error value was thrown');
    }
    return stringify(out);
  };
})()
