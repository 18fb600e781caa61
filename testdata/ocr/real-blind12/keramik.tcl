# A Tk window (wish) for the OCR benchmark's real-blind12 set: a ttk form in the keramik
# theme of tcl-ttkthemes (rounded glossy buttons and tabs), a labelframe of radio buttons, a
# spinbox, a progress bar with a grey caption and a button row.
package require Tk
lappend auto_path /usr/share/tcltk/ttkthemes
package require ttk::theme::keramik
ttk::style theme use keramik
wm title . "Print job"
wm geometry . +300+220
. configure -background [ttk::style lookup TFrame -background]
ttk::frame .f -padding 12
pack .f -fill both -expand 1
ttk::label .f.h -text "Send 14 pages to Laser-3F"
grid .f.h -columnspan 3 -sticky w -pady {0 8}
ttk::labelframe .f.s -text "Sides" -padding 6
ttk::radiobutton .f.s.one -text "One side" -value 1 -variable sides
ttk::radiobutton .f.s.two -text "Both sides" -value 2 -variable sides
set sides 2
pack .f.s.one .f.s.two -anchor w
grid .f.s -row 1 -column 0 -sticky nw
ttk::label .f.cl -text "Copies"
ttk::spinbox .f.c -from 1 -to 99 -width 4
.f.c set 3
grid .f.cl -row 1 -column 1 -sticky ne -padx 8
grid .f.c -row 1 -column 2 -sticky nw
ttk::progressbar .f.p -length 260 -value 40
grid .f.p -row 2 -columnspan 3 -sticky we -pady {10 2}
ttk::label .f.pl -text "Spooling page 6 of 14" -foreground "#707070" -font {Helvetica 8}
grid .f.pl -row 3 -columnspan 3 -sticky w
ttk::frame .f.b
ttk::button .f.b.ok -text "Print"
ttk::button .f.b.no -text "Cancel"
pack .f.b.no .f.b.ok -side right -padx 4
grid .f.b -row 4 -columnspan 3 -sticky e -pady {10 0}
