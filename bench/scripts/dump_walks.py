#!/usr/bin/env python3
"""Dumps the walker's walk of every corpus page through `aperture --script -`, one JSON file
per page, for `cargo run -p aperture-bench --bin observation`.

    dump_walks.py APERTURE_BIN OUT_DIR [partK/N | name,name...]

The pages are served by a loopback HTTP server started here (PAGES overrides the directory,
default ../shared/corpus/pages). After each navigation the page is walked every 0.7 s until its
element count has held for three walks (at most 20 s): pages whose parser-blocking scripts wait
on unreachable hosts settle late. `partK/N` takes every Nth page from the Kth, so two processes
can share the corpus.
"""
import functools, http.server, json, os, socketserver, subprocess, sys, threading, time

binary, out = sys.argv[1], sys.argv[2]
pages_dir = os.environ.get('PAGES', os.path.join(os.path.dirname(__file__), '../../../shared/corpus/pages'))
pages = sorted(p for p in os.listdir(pages_dir) if p.endswith('.html'))
if len(sys.argv) > 3:
    a = sys.argv[3]
    if a.startswith('part'):
        k, n = map(int, a[4:].split('/'))
        pages = pages[k::n]
    else:
        pages = [p for p in pages if any(s in p for s in a.split(','))]
os.makedirs(out, exist_ok=True)


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass


srv = socketserver.ThreadingTCPServer(('127.0.0.1', 0), functools.partial(Quiet, directory=pages_dir))
srv.daemon_threads = True
port = srv.server_address[1]
threading.Thread(target=srv.serve_forever, daemon=True).start()
env = dict(os.environ)
env.setdefault('APERTURE_CEF_DIR', os.path.expanduser('~/.cache/aperture/cef/131.3.5'))
profile = f'/tmp/aperture-dump-{os.getpid()}'
p = subprocess.Popen([binary, '--headless', '--no-sandbox', '--profile', profile, '--script', '-'],
                     stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env)


def cmd(c):
    p.stdin.write(json.dumps(c) + '\n')
    p.stdin.flush()
    while True:
        line = p.stdout.readline()
        if not line:
            raise SystemExit('the browser exited')
        try:
            return json.loads(line)
        except ValueError:
            continue


while '"ready"' not in p.stdout.readline():
    pass
tab = cmd({'cmd': 'open', 'url': 'about:blank'}).get('tab', 1)
for page in pages:
    t0 = time.time()
    r = cmd({'cmd': 'navigate', 'tab': tab, 'url': f'http://127.0.0.1:{port}/{page}'})
    last, stable, w = None, 0, {}
    while time.time() - t0 < 20:
        time.sleep(0.7)
        w = cmd({'cmd': 'walk', 'tab': tab})
        if 'walk' not in w:
            break
        n = len(w['walk']['nodes'])
        stable = stable + 1 if n == last and n > 3 else 0
        if stable >= 2:
            break
        last = n
    if 'walk' in w:
        with open(os.path.join(out, page + '.json'), 'w') as f:
            json.dump(w['walk'], f)
    print(page, r.get('ok'), len(w.get('walk', {}).get('nodes', [])), f'{time.time() - t0:.1f}s', file=sys.stderr, flush=True)
cmd({'cmd': 'quit'})
