#!/usr/bin/python3
"""Qt5 test app for the accessibility tests (engine/desktop/x11/atspi): the same form as a11y_gtk3.py, and a
multi-line editor named Notes holding two lines.

Prints "GEOM <id> <x> <y> <w> <h>" (screen coordinates) per widget once shown, then
"READY"; "CLICKED <label>" on a button click; "TEXT entry <text>" when the entry
changes. Needs QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 to expose its tree. Arguments: [title]
"""
import sys

from PyQt5 import QtCore, QtWidgets

app = QtWidgets.QApplication(sys.argv[:1])
title = sys.argv[1] if len(sys.argv) > 1 else "w365 a11y Qt5"
win = QtWidgets.QWidget()
win.setWindowTitle(title)
win.resize(480, 320)
win.move(150, 150)
layout = QtWidgets.QVBoxLayout(win)

label = QtWidgets.QLabel("Please sign in")
layout.addWidget(label)
row = QtWidgets.QHBoxLayout()
ulabel = QtWidgets.QLabel("Username")
entry = QtWidgets.QLineEdit()
entry.setAccessibleName("Username")
row.addWidget(ulabel)
row.addWidget(entry)
layout.addLayout(row)
check = QtWidgets.QCheckBox("Remember me")
layout.addWidget(check)
# A multi-line editor: Qt answers GetText(0, end) with "" when end is past its text.
notes = QtWidgets.QPlainTextEdit("first line\nsecond line")
notes.setAccessibleName("Notes")
notes.setFixedHeight(60)
layout.addWidget(notes)
layout.addStretch(1)
buttons = QtWidgets.QHBoxLayout()
buttons.addStretch(1)
cancel = QtWidgets.QPushButton("Cancel")
submit = QtWidgets.QPushButton("Submit")
buttons.addWidget(cancel)
buttons.addWidget(submit)
layout.addLayout(buttons)

widgets = {"label": label, "entry": entry, "check": check, "cancel": cancel, "submit": submit}
submit.clicked.connect(lambda: print("CLICKED Submit", flush=True))
cancel.clicked.connect(lambda: print("CLICKED Cancel", flush=True))
entry.textChanged.connect(lambda s: print("TEXT entry", s, flush=True))


def report():
    for wid, w in widgets.items():
        p = w.mapToGlobal(QtCore.QPoint(0, 0))
        print("GEOM", wid, p.x(), p.y(), w.width(), w.height(), flush=True)
    print("READY", flush=True)


win.show()
QtCore.QTimer.singleShot(700, report)
sys.exit(app.exec_())
