# A Tk window (wish) for the OCR benchmark's real-blind14 set: Tk's classic ttk theme, a
# heading in DejaVu Serif Condensed bold, a listbox in Nimbus Sans Narrow bold with a
# selected row, a check button, an entry and a button row in DejaVu Serif Condensed.
package require Tk
ttk::style theme use classic
wm title . "Shelf labels"
wm geometry . +300+220
. configure -background [ttk::style lookup TFrame -background]
ttk::frame .f -padding 10
pack .f -fill both -expand 1
ttk::label .f.h -text "Labels to print" -font {{DejaVu Serif} 13 bold}
pack .f.h -anchor w
listbox .f.l -height 4 -width 30 -font {{Nimbus Sans Narrow} 11 bold}
foreach i {"Aisle 3 canned beans" "Aisle 5 rice 2 kg" "Aisle 7 olive oil" "Aisle 9 oat flakes"} {.f.l insert end $i}
.f.l selection set 1
pack .f.l -fill x -pady 6
ttk::checkbutton .f.c -text "Add barcode" -variable bc
set bc 1
pack .f.c -anchor w
ttk::entry .f.e -font {{DejaVu Serif} 10}
.f.e insert 0 "Printer: Zebra GK420"
pack .f.e -fill x -pady 4
ttk::frame .f.b
ttk::button .f.b.p -text "Print 4"
ttk::button .f.b.c -text "Close"
pack .f.b.c .f.b.p -side right -padx 3
pack .f.b -fill x -pady 4
