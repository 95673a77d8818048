"""``palisade-hermes`` / ``python -m palisade_hermes``.

    palisade-hermes install-plugins [--home DIR] [--vendor] [NAME ...]
    palisade-hermes GUARD COMMAND [JSON-ARGS]      e.g. palisade-hermes injection status
"""

from __future__ import annotations

import argparse
import os
import shutil
import sys
from pathlib import Path

from . import GUARDS, _plugin

PKG_DIR = Path(__file__).resolve().parent


def install_plugins(home: Path, names: list[str], vendor: bool) -> list[Path]:
    """Copy the directory-plugin layout into ``home/plugins/``."""
    done = []
    for key in names or list(GUARDS):
        if key not in GUARDS:
            raise SystemExit(f"unknown plugin {key!r}; choose from {', '.join(GUARDS)}")
        dst = home / "plugins" / key
        if dst.exists():
            shutil.rmtree(dst)
        shutil.copytree(PKG_DIR / "plugin_dirs" / key, dst,
                        ignore=shutil.ignore_patterns("__pycache__"))
        if vendor:
            shutil.copytree(PKG_DIR, dst / "palisade_hermes",
                            ignore=shutil.ignore_patterns("__pycache__", "plugin_dirs"))
        done.append(dst)
    return done


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv and argv[0] == "install-plugins":
        ap = argparse.ArgumentParser(prog="palisade-hermes install-plugins")
        ap.add_argument("--home", default=os.environ.get("HERMES_HOME") or os.path.expanduser("~/.hermes"))
        ap.add_argument("--vendor", action="store_true",
                        help="copy the package (with its native module) into each plugin dir")
        ap.add_argument("names", nargs="*")
        a = ap.parse_args(argv[1:])
        for p in install_plugins(Path(a.home), a.names, a.vendor):
            print(f"installed {p}  (enable: hermes plugins enable {p.name})")
        return 0
    guards = set(GUARDS.values())
    if len(argv) >= 2 and argv[0] in guards:
        import json

        args = json.loads(argv[2]) if len(argv) > 2 else {}
        print(_plugin.run_rendered(argv[0], argv[1], args))
        return 0
    print(__doc__.strip())
    return 2


if __name__ == "__main__":
    sys.exit(main())
