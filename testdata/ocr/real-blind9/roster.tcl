# A Tk window (wish) for the OCR benchmark's real-blind9 set, in ttk's "alt" theme; its
# texts are the arguments, so that the test knows every word it shows. A heading in URW
# Gothic, a listbox of rows in P052 italic whose second row is selected (white on blue),
# a ttk check button and two ttk buttons.
package require Tk
ttk::style theme use alt
lassign $argv title heading check ok cancel
set rows [lrange $argv 5 end]
wm title . $title
wm geometry . +360+230
label .h -text $heading -font {{URW Gothic} 12}
pack .h -padx 12 -pady {10 4} -anchor w
listbox .l -height [llength $rows] -width 34 -font {P052 10 italic} -activestyle none \
    -selectbackground #2a5db0 -selectforeground white -exportselection 0
foreach r $rows { .l insert end $r }
.l selection set 1
pack .l -padx 12 -pady 4
ttk::checkbutton .c -text $check
.c state selected
pack .c -padx 12 -pady 4 -anchor w
frame .b
ttk::button .b.ok -text $ok
ttk::button .b.cancel -text $cancel
pack .b.cancel .b.ok -side right -padx 4
pack .b -fill x -padx 8 -pady {4 10}
