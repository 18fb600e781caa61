package snapshot

// walkJS builds the accessibility view of a document (or of the subtree of
// this) in the page, in one pass: roles, names, values and states, computed
// the way browsers do for the common cases (ARIA attributes, labels, alt,
// name from content, text CSS generates), visible nodes only, open and closed shadow roots (see
// closedJS) and slots followed, same-origin iframes walked in place. Every emitted element gets an
// id that stays the same for that element while the document lives (a
// WeakMap in the window of the isolated world the script runs in); the caller
// turns ids into refs.
// Cross-origin iframes come back with f set, for the caller to walk through
// the iframe's own target.
const walkJS = `function(o) {
  const K = Symbol.for('w365.refs');
  let st = window[K];
  if (!st) { st = {next: 0, ids: new WeakMap(), els: new Map()}; Object.defineProperty(window, K, {value: st}); }
  const idOf = el => { let id = st.ids.get(el); if (!id) { id = ++st.next; st.ids.set(el, id); st.els.set(id, new WeakRef(el)); } return id; };
  if (st.els.size > 50000) for (const [k, r] of st.els) if (!r.deref() || !r.deref().isConnected) st.els.delete(k);
  const maxDepth = o.maxDepth;
  let cut = 0, frames = 0;
  const SKIP = new Set(['script', 'style', 'noscript', 'template', 'head', 'meta', 'link', 'title', 'base']);
  const INTER = new Set(['button', 'link', 'textbox', 'searchbox', 'checkbox', 'radio', 'combobox', 'listbox', 'option', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'tab', 'switch', 'slider', 'spinbutton', 'treeitem', 'iframe', 'columnheader', 'rowheader', 'gridcell', 'scrollbar']);
  // NOREF are the roles that, named, still get no ref: containers an agent reads through. A
  // named list is not among them: it is what a card is dropped on (a board's column).
  const NOREF = new Set(['paragraph', 'listitem', 'group', 'row', 'rowgroup', 'table', 'cell', 'generic', 'main', 'banner', 'contentinfo', 'form', 'article', 'complementary', 'blockquote', 'figure', 'separator', 'code', 'presentation', 'none', 'status']);
  // INLINE are the roles of phrasing elements (strong, em, code, ...). Each gets a ref, as in
  // playwright-mcp, so that a word in one can be double-clicked or hovered, where that adds to
  // what the snapshot shows: holding text only (a strong around a link shows the link), outside
  // an element named by its content (a link's or button's strong is part of its name; a
  // cell's keeps the cell's name) but not outside an editor (its words are selected there to
  // be formatted), and above maxDepth (there its text stays its parent's).
  const INLINE = new Set(['strong', 'emphasis', 'code', 'mark', 'deletion', 'insertion', 'subscript', 'superscript', 'time', 'term']);
  const CONTENT = new Set(['button', 'link', 'heading', 'option', 'tab', 'menuitem', 'menuitemcheckbox', 'menuitemradio', 'cell', 'columnheader', 'rowheader', 'gridcell', 'treeitem', 'checkbox', 'radio', 'switch', 'tooltip']);
  const VALUED = new Set(['textbox', 'searchbox', 'combobox', 'spinbutton', 'slider', 'progressbar', 'meter']);
  const norm = s => typeof s === 'string' ? s.replace(/\s+/g, ' ').trim() : '';
  // inline says an element's text runs on with the text around it (strong, a, span, an
  // inline-block): else it is set apart by a space, as the browser's own tree and innerText do.
  const inline = el => { const d = getComputedStyle(el).display; return el.localName !== 'br' && (d.startsWith('inline') || d === 'contents'); };
  const closed = window[Symbol.for('w365.closed')];
  // What the browser's tree says of a custom element that gave itself a role through its
  // ElementInternals (registerInternals): used where its attributes say nothing.
  const ints = window[Symbol.for('w365.internals')];
  const axOf = el => ints && ints.get(el);
  const kids = el => {
    const sr = el.shadowRoot || (closed && closed.get(el));
    if (sr) { enter(sr); return sr.childNodes; }
    if (el.localName === 'slot') { const a = el.assignedNodes({flatten: true}); return a.length ? a : el.childNodes; }
    return el.childNodes;
  };
  // generated is the text CSS puts before or after an element (which: '::before' or
  // '::after'): its strings and attr() values, or the alternative text after a slash, as the
  // browser's own tree reads them. Images and icon-font glyphs (private use) are left out,
  // and content with a counter whole (its number is the browser's to compute).
  const GEN = /url\([^)]*\)|"((?:[^"\\]|\\[\s\S])*)"|'((?:[^'\\]|\\[\s\S])*)'|attr\(\s*([^\s)]+)\s*\)|(\/)|(open-quote|close-quote)/g;
  const unescape = s => s.replace(/\\([0-9a-fA-F]{1,6}) ?|\\([\s\S])/g, (m, h, c) => h ? String.fromCodePoint(parseInt(h, 16)) : c);
  // Asking every element for its pseudo-elements' style made a snapshot of 5,000 elements
  // 1.5x slower: only the elements a rule with ::before or ::after content matches are asked
  // (gen), read from the style sheets of each document and shadow root as the walk enters it
  // (enter); every element of one where a sheet cannot be read (another origin's) or a
  // selector cannot be matched apart from its pseudo-element (unread).
  const PSEUDO = /::?(before|after)\b/, PSEUDOS = new RegExp(PSEUDO.source, 'g');
  const gen = new Set(), entered = new Set(), unread = new Set();
  const enter = root => {
    if (entered.has(root)) return;
    entered.add(root);
    const scan = rules => {
      for (const r of rules) {
        if (r.cssRules && r.cssRules.length) scan(r.cssRules);
        if (!r.selectorText || !r.style || !PSEUDO.test(r.selectorText)) continue;
        const c = r.style.getPropertyValue('content');
        if (!c || c === 'none' || c === 'normal' || c === '""' || c === "''") continue;
        if (r.selectorText.includes('&')) throw new Error('nested');
        for (const part of r.selectorText.split(',')) {
          if (!part.match(PSEUDO)) continue;
          for (const e of root.querySelectorAll(part.replace(PSEUDOS, '').trim() || '*')) gen.add(e);
        }
      }
    };
    try {
      for (const sh of [...(root.styleSheets || []), ...(root.adoptedStyleSheets || [])]) scan(sh.cssRules);
    } catch (e) { unread.add(root); }
  };
  const generated = (el, which) => {
    if (!gen.has(el) && !(unread.size && unread.has(el.getRootNode()))) return '';
    const cs = getComputedStyle(el, which), c = cs.content;
    if (!c || c === 'none' || c === 'normal' || cs.display === 'none' || /\bcounters?\(/.test(c)) return '';
    let out = '', alt = null;
    for (const m of c.matchAll(GEN)) {
      if (m[4]) { alt = ''; continue; }
      const s = m[1] !== undefined ? unescape(m[1]) : m[2] !== undefined ? unescape(m[2]) : m[3] ? el.getAttribute(m[3]) || '' : m[5] ? '"' : '';
      if (alt !== null) alt += s; else out += s;
    }
    return (alt !== null ? alt : out).replace(/[\uE000-\uF8FF]/g, '');
  };
  // handles says an element with no interactive role is still one a pointer acts on: it
  // can be dragged, or it is the outermost element of a pointer or grab cursor (a click
  // handler on a div, a menu or calendar built of spans, an item a pointer-events sortable
  // list moves). A label is its control's name, not a target.
  const POINTER = new Set(['pointer', 'grab']);
  const handles = el => el.getAttribute('draggable') === 'true' || (el.localName !== 'label' && POINTER.has(getComputedStyle(el).cursor) &&
    !(el.parentElement && POINTER.has(getComputedStyle(el.parentElement).cursor)));
  // Inert content (the inert attribute, or outside a modal <dialog> that is open) takes no
  // input and is not in the browser's accessibility tree: it is left out, as there.
  const modals = new Map();
  const blocked = el => {
    // Shadow content comes only through its host, already checked.
    const doc = el.ownerDocument;
    if (el.getRootNode() !== doc) return false;
    if (!modals.has(doc)) modals.set(doc, doc.querySelector('dialog:modal'));
    const m = modals.get(doc);
    return !!m && !m.contains(el) && !el.contains(m);
  };
  // A canvas's fallback content has no box (the canvas draws it) and is shown as the
  // canvas's accessible form, as Chromium's accessibility tree has it.
  const visible = el => el.checkVisibility() || getComputedStyle(el).display === 'contents' ||
    !!(el.parentElement && el.parentElement.closest('canvas') && el.parentElement.closest('canvas').checkVisibility());
  const role = el => {
    const ex = (el.getAttribute('role') || '').trim().split(/\s+/)[0];
    if (ex) return ex === 'none' || ex === 'presentation' ? '' : ex;
    if (axOf(el)) return axOf(el).r;
    const t = el.localName;
    switch (t) {
      case 'a': case 'area': return el.hasAttribute('href') ? 'link' : '';
      case 'button': case 'summary': return 'button';
      case 'input': {
        const ty = (el.getAttribute('type') || 'text').toLowerCase();
        const m = {button: 'button', submit: 'button', reset: 'button', image: 'button', file: 'button', checkbox: 'checkbox', radio: 'radio', range: 'slider', number: 'spinbutton', hidden: 'hidden', search: 'searchbox'};
        const r = m[ty] || 'textbox';
        return (r === 'textbox' || r === 'searchbox') && el.list ? 'combobox' : r === 'hidden' ? '' : r;
      }
      case 'select': return el.multiple || el.size > 1 ? 'listbox' : 'combobox';
      case 'option': return 'option';
      case 'optgroup': case 'fieldset': case 'details': return 'group';
      case 'textarea': return 'textbox';
      case 'h1': case 'h2': case 'h3': case 'h4': case 'h5': case 'h6': return 'heading';
      case 'img': return el.getAttribute('alt') === '' && !el.hasAttribute('aria-label') ? '' : 'img';
      // A named drawing is one image; an unnamed one shows what is in it (a chart's text, its
      // parts the page gives roles), as the browser's own tree does.
      case 'svg': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'img' : '';
      case 'ul': case 'ol': case 'menu': return 'list';
      case 'li': return 'listitem';
      case 'nav': return 'navigation';
      case 'main': return 'main';
      case 'aside': return 'complementary';
      case 'article': return 'article';
      case 'form': return 'form';
      case 'header': return el.parentElement && el.parentElement.closest('article,aside,main,nav,section') ? '' : 'banner';
      case 'footer': return el.parentElement && el.parentElement.closest('article,aside,main,nav,section') ? '' : 'contentinfo';
      case 'section': return el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby') ? 'region' : '';
      case 'table': return 'table';
      case 'tr': return 'row';
      case 'td': return 'cell';
      case 'th': return el.getAttribute('scope') === 'row' ? 'rowheader' : 'columnheader';
      case 'p': return 'paragraph';
      case 'blockquote': return 'blockquote';
      case 'dialog': return 'dialog';
      case 'iframe': case 'frame': return 'iframe';
      case 'progress': return 'progressbar';
      case 'meter': return 'meter';
      case 'hr': return 'separator';
      case 'figure': return 'figure';
      case 'output': return 'status';
      case 'strong': return 'strong';
      case 'em': return 'emphasis';
      case 'code': return 'code';
      case 'mark': return 'mark';
      case 'del': return 'deletion';
      case 'ins': return 'insertion';
      case 'sub': return 'subscript';
      case 'sup': return 'superscript';
      case 'time': return 'time';
      case 'dfn': return 'term';
    }
    if (el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable)) return 'textbox';
    return '';
  };
  // content is the text of a subtree, the way a name from content reads it.
  const content = (el, skip) => {
    let out = '';
    const add = n => {
      if (out.length > 400) return;
      if (n.nodeType === 3) { out += n.data; return; }
      if (n.nodeType !== 1 || n === skip) return;
      const t = n.localName;
      if (SKIP.has(t) || n.getAttribute('aria-hidden') === 'true') return;
      if (getComputedStyle(n).visibility !== 'visible') { for (const c of kids(n)) if (c.nodeType !== 3) add(c); return; }
      if (t === 'img' || (t === 'input' && n.type === 'image')) { out += ' ' + (n.getAttribute('aria-label') || n.getAttribute('alt') || '') + ' '; return; }
      if (n.hasAttribute('aria-label')) { out += ' ' + n.getAttribute('aria-label') + ' '; return; }
      if (t === 'input' || t === 'textarea') { if (n !== skip && !['checkbox', 'radio', 'file', 'hidden'].includes(n.type)) out += ' ' + n.value + ' '; return; }
      if (t === 'select') { out += ' ' + (n.selectedOptions[0] ? n.selectedOptions[0].text : '') + ' '; return; }
      if (!visible(n)) return;
      const block = !inline(n);
      if (block) out += ' ';
      out += generated(n, '::before');
      for (const c of kids(n)) add(c);
      out += generated(n, '::after');
      if (block) out += ' ';
    };
    out += generated(el, '::before');
    for (const c of kids(el)) add(c);
    out += generated(el, '::after');
    return norm(out).slice(0, 500);
  };
  const byId = (el, id) => { const r = el.getRootNode(); const x = r.getElementById ? r.getElementById(id) : null; return x || el.ownerDocument.getElementById(id); };
  const name = (el, r) => {
    let s = el.getAttribute('aria-labelledby');
    if (s) { const t = norm(s.split(/\s+/).map(id => { const x = byId(el, id); return x ? (x.getAttribute('aria-label') || content(x)) : ''; }).join(' ')); if (t) return t; }
    s = el.getAttribute('aria-label');
    if (s && s.trim()) return norm(s);
    if (axOf(el) && axOf(el).n) return norm(axOf(el).n);
    const t = el.localName;
    if (t === 'input' || t === 'select' || t === 'textarea' || t === 'meter' || t === 'progress' || t === 'output') {
      const ty = el.type;
      if (t === 'input' && (ty === 'button' || ty === 'submit' || ty === 'reset')) return el.value || (ty === 'submit' ? 'Submit' : ty === 'reset' ? 'Reset' : '');
      if (t === 'input' && ty === 'image') return el.alt || 'Submit';
      if (el.labels && el.labels.length) { const x = norm(Array.from(el.labels).map(l => content(l, el)).join(' ')); if (x) return x; }
      return norm(el.getAttribute('placeholder') || (el.getAttribute('title') || '') || '');
    }
    if (t === 'img' || t === 'area') return norm(el.getAttribute('alt') || (el.getAttribute('title') || '') || '');
    if (t === 'iframe' || t === 'frame') return norm((el.getAttribute('title') || '') || '');
    // An option group is named by its label: options that share a text are told apart by it.
    if (t === 'optgroup') return norm(el.label);
    if (t === 'fieldset') { const lg = el.querySelector(':scope > legend'); if (lg) return content(lg); }
    if (t === 'table' && el.caption) return content(el.caption);
    if (CONTENT.has(r)) { const x = content(el); if (x) return x; }
    return norm((el.getAttribute('title') || '') || '');
  };
  // put adds a node to out; a run of text is joined to the text before it as it stands (its
  // white space is normalised once the run is whole: tidy), so that ", then" after a strong
  // reads "word, then".
  const put = (out, c) => {
    const last = out[out.length - 1];
    if (c.r === 'text' && last && last.r === 'text') last.t += c.t; else out.push(c);
  };
  // text adds a run of text to out; not the text of pname, its parent's name, whose place
  // keeps a space.
  const text = (s, out, pname) => {
    const t = norm(s);
    put(out, {r: 'text', t: t && pname && pname.includes(t) ? ' ' : s});
  };
  // apart sets the text of an element that is not inline apart from the text around it.
  const apart = (el, out) => { if (!inline(el)) put(out, {r: 'text', t: ' '}); };
  const tidy = k => k.filter(c => c.r !== 'text' || (c.t = norm(c.t)) !== '');
  // walkKids walks an element's children, between the text CSS generates before and after it.
  const walkKids = (el, depth, out, pname, inSelect) => {
    text(generated(el, '::before'), out, pname);
    for (const c of kids(el)) walk(c, depth, out, pname, inSelect);
    text(generated(el, '::after'), out, pname);
  };
  const walk = (n, depth, out, pname, inSelect) => {
    if (n.nodeType === 3) { text(n.data, out, pname); return; }
    if (n.nodeType === 11) { for (const c of n.childNodes) walk(c, depth, out, pname, inSelect); return; }
    if (n.nodeType !== 1) return;
    const el = n, tag = el.localName;
    if (SKIP.has(tag) || el.getAttribute('aria-hidden') === 'true' || el.inert || blocked(el)) return;
    if (!inSelect && !visible(el)) return;
    // visibility: hidden hides the element and its own text, not a child that is visible again.
    if (!inSelect && getComputedStyle(el).visibility !== 'visible') {
      for (const c of kids(el)) if (c.nodeType !== 3) walk(c, depth, out, pname, inSelect);
      return;
    }
    const focusable = el.tabIndex >= 0 && el.hasAttribute('tabindex');
    let r = role(el);
    if (INLINE.has(r) && !focusable && ((pname && !el.isContentEditable) || depth >= maxDepth)) r = '';
    const handled = !INTER.has(r) && !focusable && handles(el);
    const nm = r || focusable ? name(el, r) : (el.getAttribute('aria-label') || '').trim();
    if (!r && !focusable && !nm && !handled) {
      // A label names its control: its text is not repeated.
      const pn = tag === 'label' && el.control ? content(el, el.control) : pname;
      apart(el, out);
      walkKids(el, depth, out, pn, inSelect || tag === 'select');
      apart(el, out);
      return;
    }
    const x = {r: r || 'generic', i: idOf(el)};
    if (nm) x.n = nm;
    // Where editing starts (a contenteditable cell, paragraph or div) text can be typed, whatever its role.
    const editRoot = el.isContentEditable && !(el.parentElement && el.parentElement.isContentEditable);
    if (INTER.has(x.r) || INLINE.has(x.r) || focusable || handled || editRoot || (nm && !NOREF.has(x.r))) x.w = 1;
    // Depth counts the nodes an agent reads or acts on: a container with neither name nor
    // ref (an unnamed list, list item, group, row) shows its children at its own depth.
    const step = x.w || nm ? 1 : 0;
    if (step && depth >= maxDepth) { cut++; return; }
    if (VALUED.has(x.r)) {
      let v = '';
      if (tag === 'select') v = el.selectedOptions[0] ? el.selectedOptions[0].text : '';
      else if (tag === 'input' || tag === 'textarea') v = el.type === 'password' ? '•'.repeat(el.value.length) : el.value;
      else if (el.isContentEditable) v = el.textContent;
      // A native progress bar reads as a share of its maximum (none while indeterminate).
      else v = el.getAttribute('aria-valuetext') || el.getAttribute('aria-valuenow') ||
        (tag === 'progress' && el.position >= 0 ? Math.round(el.position * 100) + '%' : tag === 'meter' ? String(el.value) : '');
      if (v) x.v = v.slice(0, 500);
    }
    if (x.r === 'link' && typeof el.href === 'string' && el.href && !el.href.startsWith('javascript:') && el.href !== nm) x.u = el.href;
    const ax = axOf(el) || {};
    const ac = el.getAttribute('aria-checked') || ax.c;
    if ((x.r === 'checkbox' || x.r === 'radio' || x.r === 'switch') && tag === 'input') { if (el.indeterminate) x.c = 'mixed'; else if (el.checked) x.c = 'true'; }
    else if (ac === 'true' || ac === 'mixed') x.c = ac;
    const ap = el.getAttribute('aria-pressed') || ax.p;
    if (ap === 'true' || ap === 'mixed') x.p = ap;
    if (el.getAttribute('aria-disabled') === 'true' || ax.d || (/^(button|input|select|textarea|option|optgroup|fieldset)$/.test(tag) && el.matches(':disabled'))) x.d = 1;
    // Invalid: the page says so (aria-invalid), or a native constraint fails on a field that
    // holds a value or that the person (or agent) has left (:user-invalid); a pristine
    // empty required field is not.
    const ai = el.getAttribute('aria-invalid');
    if ((ai && ai !== 'false') || (/^(input|select|textarea)$/.test(tag) && ((el.value !== '' && !el.validity.valid) || el.matches(':user-invalid')))) x.x = 1;
    const ae = el.getAttribute('aria-expanded') || ax.e;
    if (ae === 'true' || ae === 'false') x.e = ae === 'true';
    else if (tag === 'select' && x.r === 'combobox') x.e = false;
    // A details element's summary says whether it is open: a click on an open one closes it.
    else if (tag === 'summary' && el.parentElement && el.parentElement.localName === 'details' && el.parentElement.querySelector(':scope > summary') === el) x.e = el.parentElement.open;
    if ((tag === 'option' && el.selected) || el.getAttribute('aria-selected') === 'true' || ax.s) x.s = 1;
    if (x.r === 'heading') { const l = parseInt(el.getAttribute('aria-level') || ax.l || tag.slice(1), 10); if (l > 0) x.l = l; }
    if (tag === 'iframe' || tag === 'frame') {
      x.w = 1;
      if (o.iframes) {
        let doc = null;
        try { doc = el.contentDocument; } catch (e) { doc = null; }
        if (doc && doc.body) { frames++; enter(doc); x.k = []; walk(doc.body, depth + 1, x.k, '', false); x.k = tidy(x.k); }
        else x.f = 1;
      }
    } else if (tag === 'img' && el.useMap) {
      // An image map's areas with an href are links of the image that uses the map, as the
      // browser's own tree has them (where the map stands, they have no box to show).
      const m = [...el.getRootNode().querySelectorAll('map')].find(m => '#' + m.name === el.useMap);
      x.k = [];
      for (const a of m ? m.querySelectorAll('area[href]') : []) {
        if (depth + step >= maxDepth) { cut++; continue; }
        const an = name(a, 'link'), l = {r: 'link', i: idOf(a), w: 1};
        if (an) l.n = an;
        if (a.href !== an) l.u = a.href;
        x.k.push(l);
      }
    } else if (x.r !== 'img') {
      x.k = [];
      // A cell's name is its content: show the content, not both.
      const cell = (x.r === 'cell' || x.r === 'gridcell') && !el.hasAttribute('aria-label') && !el.hasAttribute('aria-labelledby');
      const pn = cell ? '' : ((nm || '') + ' ' + (x.v || '')).trim();
      walkKids(el, depth + step, x.k, pn, inSelect || tag === 'select');
      if (INLINE.has(x.r) && x.k.some(c => c.r !== 'text')) {
        apart(el, out);
        for (const c of x.k) put(out, c);
        apart(el, out);
        return;
      }
      x.k = tidy(x.k);
      if (INLINE.has(x.r) && !x.k.length) return;
      if (cell && x.k.length) {
        if (x.k.some(c => c.r !== 'text' && !(INLINE.has(c.r) && c.t !== undefined))) delete x.n; else x.k = [];
      }
      // A link or button named by its only image: the image adds nothing.
      if (x.n && x.k.length === 1 && x.k[0].r === 'img' && x.k[0].n === x.n && !x.k[0].k) x.k = [];
    }
    if (x.k && x.k.length === 0) delete x.k;
    if (!x.n && x.k && x.k.every(c => c.r === 'text')) { x.t = x.k.map(c => c.t).join(' '); delete x.k; }
    out.push(x);
  };
  const out = [];
  const root = this && this.nodeType ? this : document;
  enter(root.nodeType === 9 ? root : root.getRootNode());
  if (root.nodeType === 9) { if (root.body) for (const c of kids(root.body)) walk(c, 0, out, '', false); }
  else walk(root, 0, out, '', false);
  return {nodes: tidy(out), cut, frames, title: root.nodeType === 9 ? root.title : ''};
}`

// resolveJS returns the element behind a walk id, or null.
const resolveJS = `function(id) {
  const st = window[Symbol.for('w365.refs')];
  const r = st && st.els.get(id);
  const el = r && r.deref();
  return el && el.isConnected ? el : null;
}`

// jsNode is one node as walkJS returns it.
type jsNode struct {
	R string    `json:"r"`
	N string    `json:"n"`
	V string    `json:"v"`
	T string    `json:"t"`
	U string    `json:"u"`
	C string    `json:"c"`
	P string    `json:"p"`
	D int       `json:"d"`
	X int       `json:"x"`
	E *bool     `json:"e"`
	S int       `json:"s"`
	L int       `json:"l"`
	I int64     `json:"i"`
	W int       `json:"w"`
	F int       `json:"f"`
	K []*jsNode `json:"k"`
}

type jsWalk struct {
	Nodes  []*jsNode `json:"nodes"`
	Cut    int       `json:"cut"`
	Frames int       `json:"frames"`
	Title  string    `json:"title"`
}
