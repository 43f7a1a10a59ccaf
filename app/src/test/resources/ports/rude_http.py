# A server that takes connections and treats them rudely, as a hostile or broken one would:
#   close  - closes each connection at once, reading nothing
#   early  - reads the request head only, answers 413 and closes with the body unread
#   bare   - reads the request head, answers 200 with a Date of its own and no Content-Type
import socket
import sys

mode, port = sys.argv[1], int(sys.argv[2])
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", port))
s.listen(64)
while True:
    c, _ = s.accept()
    if mode in ("early", "bare"):
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = c.recv(4096)
            if not chunk:
                break
            head += chunk
    if mode == "early":
        c.sendall(b"HTTP/1.1 413 Payload Too Large\r\nContent-Length: 8\r\nConnection: close\r\n\r\ntoo big!")
    if mode == "bare":
        c.sendall(b"HTTP/1.1 200 OK\r\nDate: Mon, 01 Jan 2001 00:00:00 GMT\r\nContent-Length: 4\r\nConnection: close\r\n\r\nbare")
    c.close()
