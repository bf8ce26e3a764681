#!/usr/bin/env python3
"""A stand-in for torchrun's agent store (torch.distributed.TCPStore, PyTorch 1.13's protocol):
SET 0, GET 2, CHECK 4, WAIT 5, little-endian, each string a u64 length and its bytes (see
src/bootstrap/torch_store.hpp). Listens on 127.0.0.1 on a port the kernel picks, prints the port,
and serves until its stdin closes (the test holds it open), so it never outlives the test."""
import socket
import struct
import sys
import threading

keys = {}
cond = threading.Condition()


def recv_exact(conn, n):
    buf = b""
    while len(buf) < n:
        chunk = conn.recv(n - len(buf))
        if not chunk:
            raise EOFError
        buf += chunk
    return buf


def recv_u64(conn):
    return struct.unpack("<Q", recv_exact(conn, 8))[0]


def recv_str(conn):
    return recv_exact(conn, recv_u64(conn))


def serve(conn):
    try:
        while True:
            op = recv_exact(conn, 1)[0]
            if op == 0:  # SET key value
                key, value = recv_str(conn), recv_str(conn)
                with cond:
                    keys[key] = value
                    cond.notify_all()
            elif op == 2:  # GET key -> u64 length, value
                key = recv_str(conn)
                with cond:
                    value = keys[key]
                conn.sendall(struct.pack("<Q", len(value)) + value)
            elif op in (4, 5):  # CHECK / WAIT n keys -> one byte
                wanted = [recv_str(conn) for _ in range(recv_u64(conn))]
                with cond:
                    if op == 4:
                        conn.sendall(bytes([0 if all(k in keys for k in wanted) else 1]))
                        continue
                    while not all(k in keys for k in wanted):  # woken by every SET; the test bounds it
                        cond.wait()
                conn.sendall(b"\0")
            else:
                return
    except (EOFError, ConnectionError):
        pass
    finally:
        conn.close()


def main():
    lis = socket.socket()
    lis.bind(("127.0.0.1", 0))
    lis.listen(64)
    print(lis.getsockname()[1], flush=True)

    def accept():
        while True:
            conn, _ = lis.accept()
            threading.Thread(target=serve, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    sys.stdin.read()  # until the test closes it


if __name__ == "__main__":
    main()
