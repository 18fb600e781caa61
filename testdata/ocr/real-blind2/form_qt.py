#!/usr/bin/python3
"""A Qt 5 form as Qt Designer lays one out, in Qt's Windows style: a group box of
labelled fields (line edit, spin box, combo box, date), check boxes, a table and a
button box. Prints "TRUTH <words>" (the title included) and "READY" once drawn.
Run with /usr/bin/python3 (python3-pyqt5)."""
import sys

from PyQt5.QtCore import QDate, QTimer
from PyQt5.QtWidgets import (QApplication, QCheckBox, QComboBox, QDateEdit, QDialog,
                             QDialogButtonBox, QFormLayout, QGroupBox, QLineEdit, QSpinBox,
                             QTableWidget, QTableWidgetItem, QVBoxLayout)

app = QApplication(sys.argv)
app.setStyle("Windows")
truth = []


def said(text):
    truth.extend(text.split())
    return text


w = QDialog()
w.setWindowTitle(said("Printer settings"))
v = QVBoxLayout(w)
box = QGroupBox(said("Output"))
form = QFormLayout(box)
name = QLineEdit(said("Office LaserJet 4"))
form.addRow(said("Printer name:"), name)
copies = QSpinBox()
copies.setValue(3)
said("3")
form.addRow(said("Copies:"), copies)
paper = QComboBox()
paper.addItems(["A4", "Letter"])
said("A4")
form.addRow(said("Paper size:"), paper)
when = QDateEdit(QDate(2027, 3, 14))
when.setDisplayFormat("yyyy-MM-dd")
said("2027-03-14")
form.addRow(said("Print after:"), when)
v.addWidget(box)
v.addWidget(QCheckBox(said("Print on both sides")))
duplex = QCheckBox(said("Collate pages"))
duplex.setChecked(True)
v.addWidget(duplex)
jobs = QTableWidget(3, 3)
jobs.setHorizontalHeaderLabels([said("Job"), said("Owner"), said("Pages")])
for r, row in enumerate([("invoice-118.pdf", "maria", "2"), ("thesis-draft.odt", "jonas", "87"),
                         ("map.png", "ali", "1")]):
    for c, cell in enumerate(row):
        jobs.setItem(r, c, QTableWidgetItem(said(cell)))
jobs.resizeColumnsToContents()
v.addWidget(jobs)
buttons = QDialogButtonBox(QDialogButtonBox.Ok | QDialogButtonBox.Cancel)
said("OK Cancel")
v.addWidget(buttons)
w.resize(460, 420)
w.move(500, 200)
w.show()


def ready():
    print("TRUTH " + " ".join(truth), flush=True)
    print("READY", flush=True)


QTimer.singleShot(800, ready)
app.exec_()
