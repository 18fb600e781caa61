#!/usr/bin/python3
"""GTK3 test app for the accessibility tests (engine/desktop/x11/atspi): a window and a
question dialog over it that both carry the window's title (xfce4-taskmanager asks to confirm
a Terminate so). GTK names the dialog's accessible frame by its kind ("Question"), not by
its title.

Prints "READY" once the window is mapped, then "DIALOG <xid>" with the dialog's X window once
it is mapped; prints "ANSWER yes" or "ANSWER no" when a button of the dialog is pressed. Run
with /usr/bin/python3 (python3-gi).
"""
import gi

gi.require_version("Gtk", "3.0")
gi.require_version("GdkX11", "3.0")
from gi.repository import GdkX11, GLib, Gtk  # noqa: E402,F401

TITLE = "w365 a11y GTK3 twin"
win = Gtk.Window(title=TITLE)
win.set_default_size(420, 500)
win.add(Gtk.Label(label="A list of tasks"))
win.connect("destroy", Gtk.main_quit)


def answered(dialog, response):
    print("ANSWER", "yes" if response == Gtk.ResponseType.YES else "no", flush=True)
    dialog.destroy()


def ask():
    dialog = Gtk.MessageDialog(transient_for=win, modal=True, message_type=Gtk.MessageType.QUESTION,
                               buttons=Gtk.ButtonsType.YES_NO, text="Terminate the task?")
    dialog.set_title(TITLE)
    dialog.connect("response", answered)
    dialog.show_all()
    GLib.timeout_add(500, lambda: print("DIALOG", dialog.get_window().get_xid(), flush=True) and False)
    return False


def ready():
    print("READY", flush=True)
    GLib.timeout_add(300, ask)
    return False


win.show_all()
GLib.timeout_add(700, ready)
Gtk.main()
