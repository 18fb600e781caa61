# A Tk window (wish) for the OCR benchmark's real-blind11 set: a ttk form in the awdark
# theme of tcl-awthemes (light grey text on charcoal), a notebook, labelled entries, a
# combobox, check and radio buttons and a button row, in the theme's own font.
package require Tk
lappend auto_path /usr/share/tcltk/awthemes
package require awdark
ttk::style theme use awdark
wm title . "Mail account"
wm geometry . +320+200
. configure -background [ttk::style lookup TFrame -background]
ttk::notebook .n
ttk::frame .n.a -padding 10
.n add .n.a -text "Incoming"
.n add [ttk::frame .n.b] -text "Outgoing"
.n add [ttk::frame .n.c] -text "Filters"
set r 0
foreach {l v} {"Server" "imap.fjord.example" "Port" "993" "User name" "k.holm"} {
    ttk::label .n.a.l$r -text $l
    ttk::entry .n.a.e$r -width 24
    .n.a.e$r insert 0 $v
    grid .n.a.l$r .n.a.e$r -sticky w -pady 3 -padx 4
    incr r
}
ttk::label .n.a.sl -text "Security"
ttk::combobox .n.a.sc -values {SSL/TLS STARTTLS None} -width 22
.n.a.sc set SSL/TLS
grid .n.a.sl .n.a.sc -sticky w -pady 3 -padx 4
ttk::checkbutton .n.a.k -text "Check every 15 minutes"
.n.a.k state selected
grid .n.a.k - -sticky w -pady 3 -padx 4
ttk::radiobutton .n.a.r1 -text "Keep on server" -value keep -variable mode
ttk::radiobutton .n.a.r2 -text "Delete after download" -value del -variable mode
set mode keep
grid .n.a.r1 .n.a.r2 -sticky w -pady 3 -padx 4
pack .n -padx 8 -pady 8
ttk::frame .b
ttk::button .b.t -text "Test"
ttk::button .b.s -text "Save"
ttk::button .b.c -text "Cancel"
pack .b.c .b.s .b.t -side right -padx 4
pack .b -fill x -padx 8 -pady 8
