//! Key events for CEF: Windows virtual-key codes (what Chromium keys on) plus X11 keycodes
//! (`native_key_code`, without which `KeyboardEvent.code` is empty).

use cef::{EventFlags, KeyEvent, KeyEventKind};

const SHIFT: EventFlags = EventFlags::SHIFT;
const CONTROL: EventFlags = EventFlags::CONTROL;
const ALT: EventFlags = EventFlags::ALT;
const META: EventFlags = EventFlags::META;

/// (name, windows VK, X11 keycode, character produced)
const NAMED: &[(&str, i32, i32, u16)] = &[
    ("Enter", 0x0D, 36, 13),
    ("Tab", 0x09, 23, 9),
    ("Backspace", 0x08, 22, 8),
    ("Escape", 0x1B, 9, 27),
    ("Delete", 0x2E, 119, 127),
    ("ArrowLeft", 0x25, 113, 0),
    ("ArrowUp", 0x26, 111, 0),
    ("ArrowRight", 0x27, 114, 0),
    ("ArrowDown", 0x28, 116, 0),
    ("Home", 0x24, 110, 0),
    ("End", 0x23, 115, 0),
    ("PageUp", 0x21, 112, 0),
    ("PageDown", 0x22, 117, 0),
    ("Space", 0x20, 65, 32),
    ("F5", 0x74, 71, 0),
];

const LETTER_X11: [i32; 26] = [
    38, 56, 54, 40, 26, 41, 42, 43, 31, 44, 45, 46, 58, 57, 32, 33, 24, 27, 39, 28, 30, 55, 25, 53, 29, 52,
];
const DIGIT_X11: [i32; 10] = [19, 10, 11, 12, 13, 14, 15, 16, 17, 18];
/// The symbols over the digits 0–9 on a US layout (Shift+digit).
const SHIFTED_DIGITS: [char; 10] = [')', '!', '@', '#', '$', '%', '^', '&', '*', '('];
/// (unshifted, shifted, windows VK_OEM_*, X11 keycode) for a US layout's punctuation keys:
/// pages read `keydown` for these too (a terminal's "." or "-", a field that filters keys),
/// so they go as key presses, not as bare text.
const PUNCTUATION: &[(char, char, i32, i32)] = &[
    (';', ':', 0xBA, 47),
    ('=', '+', 0xBB, 21),
    (',', '<', 0xBC, 59),
    ('-', '_', 0xBD, 20),
    ('.', '>', 0xBE, 60),
    ('/', '?', 0xBF, 61),
    ('`', '~', 0xC0, 49),
    ('[', '{', 0xDB, 34),
    ('\\', '|', 0xDC, 51),
    (']', '}', 0xDD, 35),
    ('\'', '"', 0xDE, 48),
];

fn ev(kind: KeyEventKind, vk: i32, native: i32, ch: u16, modifiers: EventFlags) -> KeyEvent {
    KeyEvent {
        kind,
        modifiers,
        windows_key_code: vk,
        native_key_code: native,
        character: ch,
        unmodified_character: ch,
    }
}

/// (vk, x11, char, needs shift) for a character on a US layout, if it has a key.
fn key_for_char(c: char) -> Option<(i32, i32, bool)> {
    match c {
        'a'..='z' => Some((
            0x41 + (c as i32 - 'a' as i32),
            LETTER_X11[c as usize - 'a' as usize],
            false,
        )),
        'A'..='Z' => Some((
            0x41 + (c as i32 - 'A' as i32),
            LETTER_X11[c as usize - 'A' as usize],
            true,
        )),
        '0'..='9' => Some((
            0x30 + (c as i32 - '0' as i32),
            DIGIT_X11[c as usize - '0' as usize],
            false,
        )),
        ' ' => Some((0x20, 65, false)),
        _ => {
            if let Some(d) = SHIFTED_DIGITS.iter().position(|&x| x == c) {
                return Some((0x30 + d as i32, DIGIT_X11[d], true));
            }
            PUNCTUATION.iter().find_map(|&(plain, shifted, vk, x11)| {
                (c == plain || c == shifted).then_some((vk, x11, c == shifted))
            })
        }
    }
}

fn press(vk: i32, native: i32, ch: u16, modifiers: EventFlags, out: &mut Vec<KeyEvent>) {
    out.push(ev(KeyEventKind::RawKeyDown, vk, native, ch, modifiers));
    // A CHAR event inserts text; chords with Control/Alt/Meta are commands, not text.
    if ch != 0 && !modifiers.intersects(CONTROL | ALT | META) {
        out.push(ev(KeyEventKind::Char, ch as i32, native, ch, modifiers));
    }
    out.push(ev(KeyEventKind::KeyUp, vk, native, ch, modifiers));
}

/// Events that type `text`. Characters without a key on a US layout (accented letters, other
/// scripts, emoji) are sent as CHAR events,
/// which Chromium inserts as text (with a trusted `input` event, but no keydown).
pub fn text(text: &str) -> Vec<KeyEvent> {
    chars(text.chars())
}

/// [`text`] for characters one at a time (no string of them is built, so a secret being typed
/// leaves no copy behind).
pub fn chars(chars: impl IntoIterator<Item = char>) -> Vec<KeyEvent> {
    let mut out = Vec::new();
    for c in chars {
        if c == '\n' {
            press(0x0D, 36, 13, EventFlags::NONE, &mut out);
            continue;
        }
        let mut buf = [0u16; 2];
        let units = c.encode_utf16(&mut buf);
        match key_for_char(c) {
            Some((vk, native, shift)) if units.len() == 1 => press(
                vk,
                native,
                units[0],
                EventFlags::NONE.with(SHIFT, shift),
                &mut out,
            ),
            _ => {
                for u in units.iter() {
                    out.push(ev(KeyEventKind::Char, *u as i32, 0, *u, EventFlags::NONE));
                }
            }
        }
    }
    out
}

/// Events for a chord such as `Enter`, `Control+a`, `Shift+Tab`.
pub fn chord(chord: &str) -> Result<Vec<KeyEvent>, String> {
    let mut modifiers = EventFlags::NONE;
    let parts: Vec<&str> = chord.split('+').collect();
    let (key, mods) = parts.split_last().ok_or("empty key")?;
    for m in mods {
        modifiers |= match m.to_ascii_lowercase().as_str() {
            "shift" => SHIFT,
            "control" | "ctrl" => CONTROL,
            "alt" => ALT,
            "meta" | "cmd" => META,
            other => {
                return Err(format!(
                    "unknown modifier {other:?} in {chord:?} (use Shift, Control, Alt, Meta)"
                ));
            }
        };
    }
    let mut out = Vec::new();
    if let Some((_, vk, native, ch)) = NAMED.iter().find(|(n, ..)| n.eq_ignore_ascii_case(key)) {
        press(*vk, *native, *ch, modifiers, &mut out);
        return Ok(out);
    }
    let mut cs = key.chars();
    match (cs.next(), cs.next()) {
        (Some(c), None) => match key_for_char(c) {
            Some((vk, native, shift)) => {
                let m = modifiers.with(SHIFT, shift);
                press(vk, native, c as u16, m, &mut out);
                Ok(out)
            }
            None => Ok(text(key)),
        },
        _ => Err(format!(
            "unknown key {key:?}: use a single character or one of {}",
            NAMED.iter().map(|n| n.0).collect::<Vec<_>>().join(", ")
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typing_a_letter_is_down_char_up_with_native_code() {
        let e = text("a");
        assert_eq!(e.len(), 3);
        assert_eq!(e[0].native_key_code, 38);
        assert_eq!(e[1].kind, KeyEventKind::Char);
        assert_eq!(e[1].character, 'a' as u16);
    }

    #[test]
    fn control_chords_insert_no_text() {
        let e = chord("Control+a").unwrap();
        assert!(e.iter().all(|k| k.kind != KeyEventKind::Char));
        assert!(e[0].modifiers.contains(CONTROL));
    }

    #[test]
    fn unknown_keys_and_modifiers_are_named_in_the_error() {
        assert!(chord("Hyper+a").unwrap_err().contains("Hyper"));
        assert!(chord("Bogus").unwrap_err().contains("Bogus"));
    }

    #[test]
    fn punctuation_is_typed_with_its_key() {
        let e = text(".");
        assert_eq!(e.len(), 3);
        assert_eq!((e[0].windows_key_code, e[0].native_key_code), (0xBE, 60));
        assert_eq!(e[1].character, '.' as u16);
        let e = text("!");
        assert_eq!((e[0].windows_key_code, e[0].native_key_code), (0x31, 10));
        assert!(e[0].modifiers.contains(SHIFT));
        let e = text("\"");
        assert_eq!(e[0].windows_key_code, 0xDE);
        assert!(e[0].modifiers.contains(SHIFT));
        assert!(!text("-").iter().any(|k| k.modifiers.contains(SHIFT)));
    }

    #[test]
    fn non_ascii_text_goes_as_char_events() {
        let e = text("é😀");
        assert_eq!(e.len(), 3); // one unit + a surrogate pair
        assert!(e.iter().all(|k| k.kind == KeyEventKind::Char));
    }
}
