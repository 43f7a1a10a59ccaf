# An HTTP server that answers with what a proxy must not pass on to a browser: cookies for the proxy's origin,
# a header named in Connection, HSTS and Clear-Site-Data; and a chunked body.
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

class Hostile(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def do_GET(self):
        self.send_response(200)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Set-Cookie", "session=stolen; Path=/")
        self.send_header("Connection", "close, X-Hop")
        self.send_header("X-Hop", "must-not-pass")
        self.send_header("Strict-Transport-Security", "max-age=31536000")
        self.send_header("Clear-Site-Data", "\"storage\"")
        self.send_header("X-Seen-Cookie", self.headers.get("Cookie", "none"))
        self.send_header("X-Seen-Api-Key", self.headers.get("x-api-key", "none"))
        self.send_header("X-Seen-Path", self.path)
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for part in (b"chunked-", b"body-", b"ok"):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
        self.wfile.write(b"0\r\n\r\n")

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        self.send_response(201)
        self.send_header("Content-Length", str(len(body) + 5))
        self.end_headers()
        self.wfile.write(b"echo:" + body)

ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), Hostile).serve_forever()
