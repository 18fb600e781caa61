// The outbox of offline.html: it takes the page over at once, answers the form's POST
// /outbox itself, and delivers the suggestion to the library (/form/outbox), marked as
// coming through it.
self.addEventListener('install', () => self.skipWaiting());
self.addEventListener('activate', e => e.waitUntil(self.clients.claim()));
self.addEventListener('fetch', e => {
  const url = new URL(e.request.url);
  if (e.request.method !== 'POST' || url.pathname !== '/outbox') return;
  e.respondWith((async () => {
    const form = await e.request.formData();
    form.append('via', 'outbox');
    const r = await fetch('/form/outbox', {method: 'POST', body: new URLSearchParams(form)});
    const body = r.ok ? 'Your suggestion of ' + form.get('title') + ' is with the library.' : 'Kept in the outbox: it will be sent later.';
    return new Response('<!doctype html><title>Outbox</title><h1>Outbox</h1><p>' + body.replace(/</g, '&lt;') + '</p>', {headers: {'Content-Type': 'text/html; charset=utf-8'}});
  })());
});
