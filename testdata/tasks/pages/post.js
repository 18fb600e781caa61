// post submits fields ({name: value}) to action as a POST form, the way a page's own form
// would, so that the task's server receives what the page decided to send.
function post(action, fields) {
  const f = document.createElement('form');
  f.method = 'post';
  f.action = action;
  for (const [name, value] of Object.entries(fields)) {
    const i = document.createElement('input');
    i.type = 'hidden';
    i.name = name;
    i.value = value;
    f.appendChild(i);
  }
  document.body.appendChild(f);
  f.submit();
}
