#!/usr/bin/env python3
"""agent-browser's `snapshot -c` and `snapshot -i -c` of every corpus page, for
`cargo run -p aperture-bench --bin observation`.

    agent_browser.py AGENT_BROWSER_BIN OUT_DIR

AGENT_BROWSER_BIN is the native binary of npm `agent-browser@0.41.2`
(node_modules/agent-browser/bin/agent-browser-linux-x64). It drives Debian's Chromium with the
switches the main bench gives @playwright/mcp's: every host but 127.0.0.1 fails at once, no
background networking. Each page is opened (agent-browser waits for the load), given 0.8 s, and
snapshotted both ways.
"""
import functools, http.server, os, socketserver, subprocess, sys, threading, time

ab_bin, out = sys.argv[1], sys.argv[2]
pages_dir = os.environ.get('PAGES', os.path.join(os.path.dirname(__file__), '../../../shared/corpus/pages'))
pages = sorted(p for p in os.listdir(pages_dir) if p.endswith('.html'))
os.makedirs(out, exist_ok=True)


class Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *a):
        pass


srv = socketserver.ThreadingTCPServer(('127.0.0.1', 0), functools.partial(Quiet, directory=pages_dir))
srv.daemon_threads = True
port = srv.server_address[1]
threading.Thread(target=srv.serve_forever, daemon=True).start()
env = dict(os.environ, AGENT_BROWSER_EXECUTABLE_PATH='/usr/bin/chromium', AGENT_BROWSER_SESSION='observation-bench',
           AGENT_BROWSER_ARGS='\n'.join([
               '--no-sandbox', '--disable-gpu', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1',
               '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update',
               '--disable-sync', '--disable-default-apps', '--metrics-recording-only', '--no-default-browser-check']))


def ab(*a):
    try:
        return subprocess.run([ab_bin, *a], env=env, capture_output=True, text=True, timeout=60).stdout
    except subprocess.TimeoutExpired:
        return ''


for page in pages:
    t0 = time.time()
    ab('open', f'http://127.0.0.1:{port}/{page}')
    time.sleep(0.8)
    c, i = ab('snapshot', '-c'), ab('snapshot', '-i', '-c')
    with open(os.path.join(out, page + '.c.txt'), 'w') as f:
        f.write(c)
    with open(os.path.join(out, page + '.i.txt'), 'w') as f:
        f.write(i)
    print(page, len(c), len(i), f'{time.time() - t0:.1f}s', file=sys.stderr, flush=True)
ab('close', '--all')
