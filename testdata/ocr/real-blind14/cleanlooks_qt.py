#!/usr/bin/python3
"""A Qt 5 dialog for the OCR benchmark's real-blind14 set, in the Cleanlooks style of
qt5-style-plugins: a group box of radio buttons, a spin box with a suffix, a slider with its
value, a read-only text in DejaVu Serif Condensed and a button row with a default button.
Prints TRUTH with the words it shows, then READY once drawn."""
import sys
from PyQt5 import QtCore, QtGui, QtWidgets

app = QtWidgets.QApplication(sys.argv)
app.setStyle(QtWidgets.QStyleFactory.create("Cleanlooks"))
w = QtWidgets.QDialog()
w.setWindowTitle("Print options")
v = QtWidgets.QVBoxLayout(w)
box = QtWidgets.QGroupBox("Paper tray")
bl = QtWidgets.QVBoxLayout(box)
for i, t in enumerate(["Upper tray (A4)", "Lower tray (Letter)", "Manual feed"]):
    r = QtWidgets.QRadioButton(t)
    r.setChecked(i == 1)
    bl.addWidget(r)
v.addWidget(box)
form = QtWidgets.QFormLayout()
s = QtWidgets.QSpinBox()
s.setRange(1, 99)
s.setValue(12)
s.setSuffix(" copies")
form.addRow("Count", s)
sl = QtWidgets.QHBoxLayout()
slider = QtWidgets.QSlider(QtCore.Qt.Horizontal)
slider.setRange(0, 100)
slider.setValue(65)
sl.addWidget(slider)
sl.addWidget(QtWidgets.QLabel("65%"))
form.addRow("Toner saving", sl)
v.addLayout(form)
note = QtWidgets.QLabel("Duplex printing needs the tray\nfitted on 3 June; ask Karin.")
note.setFont(QtGui.QFont("DejaVu Serif", 10, QtGui.QFont.Normal))
f = note.font()
f.setStretch(QtGui.QFont.Condensed)
note.setFont(f)
v.addWidget(note)
buttons = QtWidgets.QDialogButtonBox()
ok = buttons.addButton("Print", QtWidgets.QDialogButtonBox.AcceptRole)
ok.setDefault(True)
buttons.addButton("Preview", QtWidgets.QDialogButtonBox.ActionRole)
buttons.addButton("Cancel", QtWidgets.QDialogButtonBox.RejectRole)
v.addWidget(buttons)
w.setGeometry(340, 200, 380, 360)
w.show()
print("TRUTH Print options Paper tray Upper tray (A4) Lower tray (Letter) Manual feed Count 12 copies "
      "Toner saving 65% Duplex printing needs the tray fitted on 3 June; ask Karin. Print Preview Cancel", flush=True)
QtCore.QTimer.singleShot(1500, lambda: print("READY", flush=True))
app.exec_()
