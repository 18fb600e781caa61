#!/usr/bin/python3
"""GTK4 test app for the accessibility tests (engine/desktop/x11/atspi): the same form as a11y_gtk3.py.

GTK4 reports no screen positions over AT-SPI (extents in screen coordinates come back
relative to the window), which is what this app is for. Prints
"GEOM <id> <x> <y> <w> <h>" per widget in WINDOW coordinates (GTK4 cannot know where
its window is), then "READY"; "CLICKED <label>" on a click; "TEXT entry <text>" when the
entry changes. Run with /usr/bin/python3 (python3-gi, gir1.2-gtk-4.0). Other GTK4 test apps
show their windows with its run().
"""
import sys

import gi

gi.require_version("Gtk", "4.0")
from gi.repository import GLib, Gtk  # noqa: E402


def run(title, build):
    """Shows a window titled title, which build(application, window) fills and returns the
    widgets of, by id, to report: GEOM lines, then READY."""
    app = Gtk.Application(application_id=None)

    def activate(application):
        win = Gtk.ApplicationWindow(application=application, title=title)
        widgets = build(application, win)

        def report():
            for wid, w in widgets.items():
                ok, r = w.compute_bounds(win)
                print("GEOM", wid, int(r.get_x()), int(r.get_y()), int(r.get_width()), int(r.get_height()), flush=True)
            print("READY", flush=True)
            return False

        win.present()
        GLib.timeout_add(900, report)

    app.connect("activate", activate)
    app.run([])


def form(application, win):
    widgets = {}
    win.set_default_size(480, 320)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8)
    for side in ("top", "bottom", "start", "end"):
        getattr(box, "set_margin_" + side)(12)
    win.set_child(box)
    label = Gtk.Label(label="Please sign in")
    box.append(label)
    widgets["label"] = label
    row = Gtk.Box(spacing=6)
    row.append(Gtk.Label(label="Username"))
    entry = Gtk.Entry(hexpand=True)
    entry.update_property([Gtk.AccessibleProperty.LABEL], ["Username"])
    row.append(entry)
    box.append(row)
    widgets["entry"] = entry
    check = Gtk.CheckButton(label="Remember me")
    box.append(check)
    widgets["check"] = check
    buttons = Gtk.Box(spacing=6, halign=Gtk.Align.END, vexpand=True, valign=Gtk.Align.END)
    cancel = Gtk.Button(label="Cancel")
    submit = Gtk.Button(label="Submit")
    buttons.append(cancel)
    buttons.append(submit)
    box.append(buttons)
    widgets["cancel"] = cancel
    widgets["submit"] = submit
    for b in (cancel, submit):
        b.connect("clicked", lambda b: print("CLICKED", b.get_label(), flush=True))
    entry.connect("changed", lambda e: print("TEXT entry", e.get_text(), flush=True))
    return widgets


if __name__ == "__main__":
    run(sys.argv[1] if len(sys.argv) > 1 else "w365 a11y GTK4", form)
