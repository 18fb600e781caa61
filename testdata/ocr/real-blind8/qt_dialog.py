#!/usr/bin/python3
"""A Qt 5 dialog in the Windows style for the OCR benchmark's real-blind8 set: a form of
labels, a spin box, a combo box and check boxes over a dialog's button box, and a tool tip
shown over its first field. Prints "TRUTH <words>" (the title included) and "READY" once
drawn. Run with /usr/bin/python3 (python3-pyqt5)."""
import sys

from PyQt5.QtCore import QPoint, QTimer
from PyQt5.QtWidgets import (QApplication, QCheckBox, QComboBox, QDialog, QDialogButtonBox,
                             QFormLayout, QGroupBox, QLineEdit, QSpinBox, QToolTip, QVBoxLayout)

app = QApplication(sys.argv)
app.setStyle("Windows")
truth = []


def said(text):
    truth.extend(text.split())
    return text


d = QDialog()
d.setWindowTitle(said("Database settings"))
v = QVBoxLayout(d)
group = QGroupBox(said("Security"))
form = QFormLayout(group)
name = QLineEdit(said("vault-2026"))
form.addRow(said("Name:"), name)
spin = QSpinBox()
spin.setRange(1, 100)
spin.setValue(12)
said("12")
form.addRow(said("Lock after (min):"), spin)
combo = QComboBox()
combo.addItem(said("Argon2id"))
form.addRow(said("Key function:"), combo)
v.addWidget(group)
for text, on in [("Clear clipboard after copying", True), ("Hide passwords by default", False)]:
    c = QCheckBox(said(text))
    c.setChecked(on)
    v.addWidget(c)
box = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
said("OK Cancel")
v.addWidget(box)
d.resize(420, 300)
d.move(380, 200)
d.show()


def tip():
    QToolTip.showText(name.mapToGlobal(QPoint(20, name.height())), said("Shown in the title bar"), name)
    QTimer.singleShot(600, lambda: print("TRUTH " + " ".join(truth), "READY", sep="\n", flush=True))


QTimer.singleShot(800, tip)
app.exec_()
