#!/usr/bin/python3
"""A small GTK 3 window for the window, clipboard and conformance tests of engine/desktop/x11.

Run with Debian's /usr/bin/python3 (python3-gi, gir1.2-gtk-3.0).

  win_app.py --title T [--wmclass NAME] [--width W --height H] [--x X --y Y]
             [--confirm-close] [--entry]

It prints one JSON object per line on stdout:
  {"event": "ready", "pid": ...}                 once the window is mapped
  {"event": "geometry", ...}                     answering "geom" on stdin: the frame
      rectangle as GDK sees it (gdk_window_get_frame_extents), the client origin and size,
      and whether GTK thinks the window is active
  {"event": "close-request"}                     the window manager asked it to close
  {"event": "dialog-shown"}                      its "Save changes?" dialog is on screen
  {"event": "text", "text": ...}                 the entry's text changed (--entry)
  {"event": "popup", "rect": [x, y, w, h]}       answering "popup" on stdin: a pop-up (an
      override-redirect window, as an open menu is) shown 30 px inside the window's origin;
      "unpopup" hides it
  {"event": "tool-shown"}                        answering "tool" on stdin: a tool window
      titled "<title> Tools", transient for the window and not modal (as mtPaint's Settings
      Toolbar is), shown beside it and given the focus
With --confirm-close the window refuses to close and asks "Save changes?" instead.
"""
import argparse
import json
import sys

import gi

gi.require_version("Gtk", "3.0")
gi.require_version("Gdk", "3.0")
from gi.repository import GLib, Gdk, Gtk  # noqa: E402


def say(**kw):
    sys.stdout.write(json.dumps(kw) + "\n")
    sys.stdout.flush()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--title", required=True)
    ap.add_argument("--wmclass", default="")
    ap.add_argument("--width", type=int, default=400)
    ap.add_argument("--height", type=int, default=300)
    ap.add_argument("--x", type=int, default=None)
    ap.add_argument("--y", type=int, default=None)
    ap.add_argument("--confirm-close", action="store_true")
    ap.add_argument("--entry", action="store_true")
    a = ap.parse_args()

    if a.wmclass:
        GLib.set_prgname(a.wmclass)
    win = Gtk.Window(title=a.title)
    win.set_default_size(a.width, a.height)
    if a.x is not None and a.y is not None:
        win.move(a.x, a.y)

    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    win.add(box)
    box.pack_start(Gtk.Label(label=a.title), False, False, 4)
    if a.entry:
        entry = Gtk.Entry()
        entry.connect("changed", lambda e: say(event="text", text=e.get_text()))
        box.pack_start(entry, False, False, 4)
        win.connect("map-event", lambda *_: entry.grab_focus())

    def on_delete(*_):
        say(event="close-request")
        if not a.confirm_close:
            Gtk.main_quit()
            return False
        d = Gtk.MessageDialog(transient_for=win, modal=True,
                              message_type=Gtk.MessageType.QUESTION,
                              buttons=Gtk.ButtonsType.YES_NO, text="Save changes?")
        d.set_title("Save changes?")
        d.connect("map-event", lambda *_: say(event="dialog-shown"))
        d.connect("response", lambda dd, r: dd.destroy())
        d.show_all()
        return True  # keep the window open

    win.connect("delete-event", on_delete)
    win.connect("map-event", lambda *_: say(event="ready", pid=__import__("os").getpid()))

    def geom():
        gw = win.get_window()
        if gw is None:
            say(event="geometry", mapped=False)
            return
        fr = gw.get_frame_extents()
        _, ox, oy = gw.get_origin()
        say(event="geometry", mapped=True,
            frame=[fr.x, fr.y, fr.width, fr.height],
            origin=[ox, oy], size=[gw.get_width(), gw.get_height()],
            active=win.is_active(), state=int(gw.get_state()))

    def on_stdin(src, cond):
        line = sys.stdin.readline()
        if not line:
            Gtk.main_quit()
            return False
        cmd = line.strip()
        if cmd == "geom":
            geom()
        elif cmd == "popup":
            _, ox, oy = win.get_window().get_origin()
            popup.move(ox + 30, oy + 30)
            popup.show_all()
            GLib.timeout_add(200, popped)
        elif cmd == "unpopup":
            popup.hide()
        elif cmd == "tool":
            tool.show_all()
            tool.present()
        elif cmd == "quit":
            Gtk.main_quit()
        return True

    def popped():
        pw = popup.get_window()
        _, px, py = pw.get_origin()
        say(event="popup", rect=[px, py, pw.get_width(), pw.get_height()])
        return False

    popup = Gtk.Window(type=Gtk.WindowType.POPUP)
    popup.set_default_size(120, 80)
    popup.add(Gtk.Label(label="popup"))

    tool = Gtk.Window(title=a.title + " Tools")
    tool.set_transient_for(win)
    tool.set_type_hint(Gdk.WindowTypeHint.UTILITY)
    tool.set_default_size(150, 100)
    tool.add(Gtk.Label(label="tools"))
    tool.connect("map-event", lambda *_: say(event="tool-shown"))

    GLib.io_add_watch(sys.stdin, GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP, on_stdin)
    win.show_all()
    Gtk.main()


if __name__ == "__main__":
    main()
