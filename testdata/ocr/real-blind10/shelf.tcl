# A Tk window (wish) for the OCR benchmark's real-blind10 set: a toolbar of flat buttons
# in white bold Nimbus Sans on a teal bar, a ttk treeview in the clam theme whose rows
# alternate white and pale grey (zebra), in DejaVu Sans Condensed 9, and a status bar of
# small grey text (Nimbus Sans 7) on a sunken strip. Its texts are the arguments, so that
# the test knows every word it shows: title, status, the toolbar's labels joined by |,
# the columns joined by |, then one argument per row, its cells joined by |.
package require Tk
ttk::style theme use clam
lassign $argv title status tools cols
set rows [lrange $argv 4 end]
wm title . $title
wm geometry . +330+210
frame .t -background #00796b
foreach label [split $tools |] {
    set b .t.b[incr n]
    button $b -text $label -relief flat -background #00796b -foreground white \
        -activebackground #00897b -highlightthickness 0 -font {{Nimbus Sans} 10 bold}
    pack $b -side left -padx 2 -pady 3
}
pack .t -fill x
ttk::style configure Treeview -font {{DejaVu Sans Condensed} 9} -rowheight 20
ttk::style configure Treeview.Heading -font {{DejaVu Sans Condensed} 9 bold}
set cols [split $cols |]
ttk::treeview .v -columns $cols -show headings -height [llength $rows]
foreach c $cols {
    .v heading $c -text $c -anchor w
    .v column $c -width 120 -anchor w
}
.v tag configure odd -background #ececec
set i 0
foreach r $rows {
    .v insert {} end -values [split $r |] -tags [expr {[incr i] % 2 ? "" : "odd"}]
}
pack .v -padx 8 -pady 8
label .s -text $status -anchor w -relief sunken -borderwidth 1 -foreground #6e6e6e \
    -font {{Nimbus Sans} 7}
pack .s -fill x -side bottom
