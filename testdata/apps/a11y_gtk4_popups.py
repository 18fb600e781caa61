#!/usr/bin/python3
"""GTK4 pop-ups for the accessibility tests (engine/desktop/x11/atspi): a drop-down, a menu
button with a popover menu, and an icon-only button with a tooltip and no label.

A GTK4 pop-up is a surface (an override-redirect X window) of its own. Prints
"GEOM <id> <x> <y> <w> <h>" per widget in WINDOW coordinates, then "READY"; "SELECTED <item>"
when the drop-down's selection changes, "ACTIVATED <action>" when a menu item is chosen,
"CLICKED <id>" on a click of the icon button. Run with /usr/bin/python3 (python3-gi,
gir1.2-gtk-4.0).
"""
import sys

import gi

gi.require_version("Gtk", "4.0")
from gi.repository import Gio, GLib, Gtk  # noqa: E402

title = sys.argv[1] if len(sys.argv) > 1 else "w365 a11y GTK4 popups"
app = Gtk.Application(application_id=None)
widgets = {}
colours = ["Red", "Green", "Blue", "Yellow"]


def activate(application):
    win = Gtk.ApplicationWindow(application=application, title=title)
    win.set_default_size(420, 300)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=8, halign=Gtk.Align.START)
    for side in ("top", "bottom", "start", "end"):
        getattr(box, "set_margin_" + side)(40)
    win.set_child(box)

    drop = Gtk.DropDown.new_from_strings(colours)
    drop.update_property([Gtk.AccessibleProperty.LABEL], ["Colour"])
    drop.connect("notify::selected", lambda d, _: print("SELECTED", colours[d.get_selected()], flush=True))
    box.append(drop)
    widgets["drop"] = drop

    menu = Gio.Menu()
    for label in ("Open", "Save", "Quit"):
        menu.append(label, "app." + label.lower())
        action = Gio.SimpleAction.new(label.lower(), None)
        action.connect("activate", lambda a, _: print("ACTIVATED", a.get_name(), flush=True))
        application.add_action(action)
    mb = Gtk.MenuButton(label="File", menu_model=menu)
    box.append(mb)
    widgets["menu"] = mb

    icon = Gtk.Button(icon_name="edit-find-symbolic", tooltip_text="Search")
    icon.connect("clicked", lambda b: print("CLICKED icon", flush=True))
    box.append(icon)
    widgets["icon"] = icon

    def popped(popover):
        # Every label of an open pop-up, in the coordinates of the pop-up's own surface.
        native = popover.get_native()
        tx, ty = native.get_surface_transform()
        stack = [popover]
        while stack:
            w = stack.pop()
            if isinstance(w, Gtk.Label) and w.get_mapped() and w.get_text():
                ok, r = w.compute_bounds(native)
                print("ITEM", w.get_text(), int(r.get_x() + tx), int(r.get_y() + ty), int(r.get_width()), int(r.get_height()), flush=True)
            c = w.get_first_child()
            while c is not None:
                stack.append(c)
                c = c.get_next_sibling()
        print("POPPED", flush=True)
        return False

    def watch(w):
        c = w.get_first_child()
        while c is not None:
            if isinstance(c, Gtk.Popover):
                c.connect("map", lambda p: GLib.timeout_add(300, popped, p))
            watch(c)
            c = c.get_next_sibling()

    watch(drop)
    watch(mb)

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
