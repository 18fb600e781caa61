#!/usr/bin/python3
"""Qt5 test app for the accessibility tests (engine/desktop/x11/atspi): thirty check boxes in a
scroll area that shows about eight of them, as KeePassXC's settings, and below them a checkable
group box holding a combo box, as qBittorrent's log file settings. Qt keeps the ones scrolled
out SHOWING, at their places beyond the view.

Prints "READY" once shown. Needs QT_LINUX_ACCESSIBILITY_ALWAYS_ON=1 to expose its tree.
"""
import sys

from PyQt5 import QtCore, QtWidgets

app = QtWidgets.QApplication(sys.argv[:1])
win = QtWidgets.QWidget()
win.setWindowTitle("w365 a11y Qt5 scroll")
win.move(150, 150)
layout = QtWidgets.QVBoxLayout(win)
inner = QtWidgets.QWidget()
rows = QtWidgets.QVBoxLayout(inner)
for i in range(1, 31):
    rows.addWidget(QtWidgets.QCheckBox("Option %d" % i))
group = QtWidgets.QGroupBox("Keep logs")
group.setCheckable(True)
unit = QtWidgets.QComboBox()
unit.addItems(["days", "weeks"])
QtWidgets.QVBoxLayout(group).addWidget(unit)
rows.addWidget(group)
area = QtWidgets.QScrollArea()
area.setWidget(inner)
area.setFixedSize(300, 200)
layout.addWidget(area)
layout.addWidget(QtWidgets.QPushButton("OK"))
win.show()
QtCore.QTimer.singleShot(700, lambda: print("READY", flush=True))
app.exec_()
