# A Tk window (wish) for the OCR benchmark's real-blind13 set: a ttk notebook in the black
# theme of tcl-ttkthemes (light grey on near-black), a treeview of three columns, a check
# button, a scale and a 9 px grey status line under a bold heading.
package require Tk
lappend auto_path /usr/share/tcltk/ttkthemes
package require ttk::theme::black
ttk::style theme use black
wm title . "Fleet status"
wm geometry . +280+200
. configure -background [ttk::style lookup TFrame -background]
ttk::frame .f -padding 10
pack .f -fill both -expand 1
ttk::label .f.h -text "Depot North" -font {Helvetica 14 bold}
pack .f.h -anchor w
ttk::notebook .f.n
ttk::frame .f.n.v -padding 6
.f.n add .f.n.v -text "Vans"
.f.n add [ttk::frame .f.n.d] -text "Drivers"
.f.n add [ttk::frame .f.n.r] -text "Routes"
pack .f.n -fill both -expand 1 -pady 6
ttk::treeview .f.n.v.t -columns {plate km state} -show headings -height 4
foreach {c t w} {plate Plate 110 km Odometer 100 state State 110} {
    .f.n.v.t heading $c -text $t
    .f.n.v.t column $c -width $w
}
.f.n.v.t insert {} end -values {KX-204 48210 loading}
.f.n.v.t insert {} end -values {KX-219 9377 parked}
.f.n.v.t insert {} end -values {LM-031 120455 service}
pack .f.n.v.t -fill both -expand 1
ttk::checkbutton .f.c -text "Hide parked vans"
pack .f.c -anchor w
ttk::frame .f.r
ttk::label .f.r.l -text "Refresh every"
ttk::scale .f.r.s -from 10 -to 120 -value 45 -length 140
ttk::label .f.r.v -text "45 s"
pack .f.r.l .f.r.s .f.r.v -side left -padx 3
pack .f.r -anchor w -pady 4
label .f.st -text "Synced 08:42 with depot server" -font {Helvetica -9} -foreground "#8a8a8a" \
    -background [ttk::style lookup TFrame -background]
pack .f.st -anchor w
