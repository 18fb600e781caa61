#!/usr/bin/python3
"""A Qt 5 window for the OCR benchmark's real-blind12 set, in the Plastique style of
qt5-style-plugins on a dark palette: a tab bar, a group box of checkable options, a combo
box, a slider with its value, a progress bar showing its percentage and a small status
bar. Prints READY once drawn; its words are transcribed by hand into
qt-plastique-dark.words."""
import sys
from PyQt5 import QtCore, QtGui, QtWidgets

app = QtWidgets.QApplication(sys.argv)
app.setStyle(QtWidgets.QStyleFactory.create("Plastique"))
p = QtGui.QPalette()
for role, colour in ((p.Window, "#2b2b2b"), (p.WindowText, "#d8d8d8"), (p.Base, "#1e1e1e"), (p.AlternateBase, "#333333"),
                     (p.Text, "#e0e0e0"), (p.Button, "#3a3a3a"), (p.ButtonText, "#e0e0e0"), (p.Highlight, "#2f6f9f"),
                     (p.HighlightedText, "#ffffff")):
    p.setColor(role, QtGui.QColor(colour))
app.setPalette(p)
w = QtWidgets.QMainWindow()
w.setWindowTitle("Render settings")
tabs = QtWidgets.QTabWidget()
page = QtWidgets.QWidget()
tabs.addTab(page, "Output")
tabs.addTab(QtWidgets.QWidget(), "Lights")
tabs.addTab(QtWidgets.QWidget(), "Camera")
form = QtWidgets.QFormLayout(page)
fmt = QtWidgets.QComboBox()
fmt.addItems(["OpenEXR", "PNG"])
form.addRow("Format", fmt)
box = QtWidgets.QGroupBox("Passes")
v = QtWidgets.QVBoxLayout(box)
for name, on in (("Diffuse", True), ("Shadow", True), ("Mist", False)):
    c = QtWidgets.QCheckBox(name)
    c.setChecked(on)
    v.addWidget(c)
form.addRow(box)
row = QtWidgets.QHBoxLayout()
s = QtWidgets.QSlider(QtCore.Qt.Horizontal)
s.setRange(1, 64)
s.setValue(16)
row.addWidget(s)
row.addWidget(QtWidgets.QLabel("16 samples"))
form.addRow("Quality", row)
bar = QtWidgets.QProgressBar()
bar.setValue(73)
form.addRow("Frame 212", bar)
w.setCentralWidget(tabs)
w.statusBar().showMessage("GPU 0 idle, 5.1 GB free")
w.setGeometry(320, 200, 460, 360)
w.show()
QtCore.QTimer.singleShot(1500, lambda: print("READY", flush=True))
app.exec_()
