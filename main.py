"""Start Autograd Explorer: ``python main.py [SESSION.json] [--export DIR]``."""

from gui.app import main

if (
    __name__ == "__main__"
):  # the engine's child process imports this file; it must not start the app
    raise SystemExit(main())
