"""`rulecraft serve`: play the compiled games in the browser, a secret link per seat."""

from __future__ import annotations

import argparse
import ipaddress

from .registry import CLIError, command, project_of


def _serve_args(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--host",
        default="127.0.0.1",
        help="the address to listen on (default 127.0.0.1: this machine only; see "
        "docs/serve.md before opening it to a network)",
    )
    p.add_argument("--port", type=int, default=8000, help="the port (default 8000)")
    p.add_argument(
        "--db",
        default="rulecraft-games.sqlite3",
        help="the SQLite file the games live in, created if missing "
        "(default: rulecraft-games.sqlite3 in this folder)",
    )


def _serve(args: argparse.Namespace) -> int:
    try:
        import uvicorn
        from rulecraft.runtime.serve.app import MAX_MESSAGE, create_app
    except ImportError:
        raise CLIError(
            "rulecraft serve needs the serve extra: pip install 'rulecraft[serve]'"
        ) from None
    project_of(args, required=False)
    if not 0 < args.port < 65536:
        raise CLIError(f"--port {args.port}: a port is from 1 to 65535")
    try:
        loopback = ipaddress.ip_address(args.host).is_loopback
    except ValueError:
        loopback = args.host == "localhost"
    app = create_app(args.db)
    where = f"http://{args.host}:{args.port}/"
    print(f"rulecraft serve: {where} (games in {args.db}; Ctrl-C stops it)", flush=True)
    if not loopback:
        print(
            "  listening beyond this machine: put it behind a reverse proxy with HTTPS "
            "(docs/serve.md)",
            flush=True,
        )
    uvicorn.run(
        app,
        host=args.host,
        port=args.port,
        log_level="warning",
        ws_max_size=MAX_MESSAGE,
        proxy_headers=False,
    )
    return 0


command("serve", "play the compiled games in the browser", _serve_args, _serve)
