#!/usr/bin/python3
"""GTK3 test app for the keys-and-focus tests (test/e2e/typing_focus_test.go): a "Rename…"
button that opens a dialog 400 ms after its click, as an application that reads something
before it shows the dialog does; the dialog's field holds "draft", the cursor at its end, not
selected, and Return in it is OK.

Prints "READY" once the window is mapped, "CLICKED <n>" on each click of the button and
"NAME <text>" when the dialog is answered OK. Run with /usr/bin/python3 (python3-gi).
"""
import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

clicks = 0


def show_dialog():
    dialog = Gtk.Dialog(title="Rename", transient_for=win, modal=True)
    dialog.add_button("Cancel", Gtk.ResponseType.CANCEL)
    dialog.add_button("OK", Gtk.ResponseType.OK)
    dialog.set_default_response(Gtk.ResponseType.OK)
    box = dialog.get_content_area()
    box.set_border_width(12)
    label = Gtk.Label.new_with_mnemonic("_New name")
    entry = Gtk.Entry(text="draft", activates_default=True)
    label.set_mnemonic_widget(entry)
    entry.get_accessible().set_name("New name")
    box.pack_start(label, False, False, 0)
    box.pack_start(entry, False, False, 0)

    def answered(d, response):
        if response == Gtk.ResponseType.OK:
            print("NAME", entry.get_text(), flush=True)
        d.destroy()

    dialog.connect("response", answered)
    dialog.show_all()
    entry.grab_focus_without_selecting()
    entry.set_position(-1)
    return False


def clicked(_button):
    global clicks
    clicks += 1
    print("CLICKED", clicks, flush=True)
    GLib.timeout_add(400, show_dialog)


win = Gtk.Window(title="w365 rename dialog")
win.set_default_size(640, 400)
win.move(40, 40)
grid = Gtk.Grid(row_spacing=8, column_spacing=8)
grid.set_border_width(12)
win.add(grid)
button = Gtk.Button(label="Rename…")
button.connect("clicked", clicked)
# Top left of a large window: the dialog, centred on it, opens away from the button.
grid.attach(button, 0, 0, 1, 1)
grid.attach(Gtk.Label(label="A file named draft"), 1, 0, 1, 1)
win.connect("destroy", Gtk.main_quit)
win.show_all()
button.grab_focus()
GLib.timeout_add(700, lambda: print("READY", flush=True) and False)
Gtk.main()
