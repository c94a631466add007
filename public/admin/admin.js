// Progressive enhancement only: every page works without this script.
'use strict';

/**
 * A picker of the server form (tools, prompts, resources, templates): filter rows by text without
 * losing ticks, pick shown rows. `data-picker` names the field its checkboxes post.
 */
function enhancePicker(picker) {
  const field = picker.dataset.picker;
  const noun = picker.dataset.pickerNoun;
  const filter = picker.querySelector('[data-picker-filter]');
  const selectedOnly = picker.querySelector('[data-picker-selected-only]');
  const status = picker.querySelector('[data-picker-status]');
  const count = picker.querySelector('[data-picker-count]');
  const groups = Array.from(picker.querySelectorAll('[data-picker-group]'));
  const rows = Array.from(picker.querySelectorAll('[data-picker-row]')).map((row) => ({
    row,
    box: row.querySelector('input[type="checkbox"]'),
    text: row.textContent.replace(/\s+/g, ' ').toLowerCase(),
  }));

  picker.querySelector('[data-picker-controls]').hidden = false;
  for (const actions of picker.querySelectorAll('[data-picker-group-actions]')) {
    actions.hidden = false;
  }

  function updateCount() {
    count.textContent = String(rows.filter(({ box }) => box.checked).length);
    for (const group of groups) {
      const picked = group.querySelectorAll(`input[name="${field}"]:checked`).length;
      group.querySelector('[data-picker-group-count]').textContent = String(picked);
    }
  }

  function apply() {
    const terms = filter.value.toLowerCase().split(/\s+/).filter(Boolean);
    const onlyPicked = selectedOnly.checked;
    let shown = 0;
    for (const { row, box, text } of rows) {
      const visible = terms.every((term) => text.includes(term)) && (!onlyPicked || box.checked);
      row.hidden = !visible;
      if (visible) shown += 1;
    }
    for (const group of groups) {
      const any = group.querySelector('[data-picker-row]:not([hidden])') !== null;
      group.hidden = !any;
      if (any && (terms.length > 0 || onlyPicked)) group.open = true;
    }
    const filtering = terms.length > 0 || onlyPicked;
    status.textContent = filtering
      ? `${shown} of ${rows.length} ${noun} shown; picks are kept.`
      : '';
  }

  let pending = 0;
  filter.addEventListener('input', () => {
    clearTimeout(pending);
    pending = setTimeout(apply, 80);
  });
  filter.addEventListener('keydown', (event) => {
    // Enter in the filter box would submit the whole server form.
    if (event.key === 'Enter') event.preventDefault();
  });
  selectedOnly.addEventListener('change', apply);
  picker.addEventListener('change', (event) => {
    if (event.target.name === field) updateCount();
  });
  picker.addEventListener('click', (event) => {
    const button = event.target.closest('[data-picker-all], [data-picker-none]');
    if (!button) return;
    const pick = button.hasAttribute('data-picker-all');
    const group = button.closest('[data-picker-group]');
    for (const row of group.querySelectorAll('[data-picker-row]:not([hidden])')) {
      row.querySelector('input[type="checkbox"]').checked = pick;
    }
    updateCount();
  });
}

/** The gateway form: show only the credential fields of the chosen kind. */
function enhanceCredentials(select) {
  const form = select.form;
  function apply() {
    for (const field of form.querySelectorAll('[data-auth]')) {
      field.hidden = !field.dataset.auth.split(' ').includes(select.value);
    }
  }
  select.addEventListener('change', apply);
  apply();
}

/** The gateway form: show only the fields of the chosen transport (URL and credentials, or a command). */
function enhanceTransport(select) {
  const form = select.form;
  function apply() {
    for (const field of form.querySelectorAll('[data-transport]')) {
      field.hidden = !field.dataset.transport.split(' ').includes(select.value);
    }
  }
  select.addEventListener('change', apply);
  apply();
}

/** A Copy button beside a set-up snippet; the snippet stays selectable without it. */
function enhanceCopy(code) {
  if (!navigator.clipboard) return;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'small copy-button';
  button.textContent = 'Copy';
  button.addEventListener('click', () => {
    navigator.clipboard.writeText(code.textContent).then(
      () => (button.textContent = 'Copied'),
      () => (button.textContent = 'Select and copy'),
    );
  });
  code.parentElement.after(button);
}

/**
 * The playground's array fields: add an item from the field's template (its names and ids given a
 * fresh index), remove one. Without this script the form still sends the items it drew.
 */
function enhanceArray(fieldset) {
  const list = fieldset.querySelector(':scope > [data-array-items]');
  const template = fieldset.querySelector(':scope > template[data-array-template]');
  const add = fieldset.querySelector(':scope > [data-array-add]');
  let next = list.children.length;
  for (const button of list.querySelectorAll(':scope > li > [data-array-remove]')) {
    button.hidden = false;
  }
  add.hidden = false;
  add.addEventListener('click', () => {
    const index = String(next++);
    const item = template.content.firstElementChild.cloneNode(true);
    for (const element of [item, ...item.querySelectorAll('*')]) {
      for (const attribute of [
        'name',
        'id',
        'for',
        'aria-describedby',
        'data-field',
        'data-array',
      ]) {
        const value = element.getAttribute(attribute);
        if (value !== null) element.setAttribute(attribute, value.split('__index__').join(index));
      }
    }
    list.append(item);
    for (const nested of item.querySelectorAll('[data-array]')) enhanceArray(nested);
    const first = item.querySelector('input, select, textarea');
    if (first) first.focus();
  });
  list.addEventListener('click', (event) => {
    const button = event.target.closest('[data-array-remove]');
    if (button && button.parentElement.parentElement === list) button.parentElement.remove();
  });
}

/**
 * A minimal MCP Apps host for the playground's result: the View in the sandboxed frame is
 * initialised and given the call's arguments and result; its tool calls go to Portico as the
 * chosen user (`/admin/playground/app-call`), which serves only its own gateway's tools. Its other
 * requests are not available here.
 */
function hostApp(frame) {
  const input = JSON.parse(frame.dataset.appInput);
  const result = JSON.parse(frame.dataset.appResult);
  const csrf = document.querySelector('input[name="_csrf"]').value;
  const send = (message) => frame.contentWindow.postMessage({ jsonrpc: '2.0', ...message }, '*');
  function callTool(id, params) {
    fetch('/admin/playground/app-call', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        _csrf: csrf,
        server: frame.dataset.server,
        as: frame.dataset.as,
        app: frame.dataset.app,
        name: params && params.name,
        arguments: (params && params.arguments) || {},
      }),
    })
      .then((response) => response.json())
      .then(
        (answer) => send({ id, ...answer }),
        (error) => send({ id, error: { code: -32603, message: String(error) } }),
      );
  }
  window.addEventListener('message', (event) => {
    if (event.source !== frame.contentWindow) return;
    const message = event.data;
    if (!message || message.jsonrpc !== '2.0' || typeof message.method !== 'string') return;
    if (message.method === 'ui/initialize' && message.id !== undefined) {
      send({
        id: message.id,
        result: {
          protocolVersion: (message.params && message.params.protocolVersion) || '2026-01-26',
          hostInfo: { name: 'Portico playground', version: '1' },
          hostCapabilities: { serverTools: {} },
          hostContext: { theme: 'light', platform: 'web', displayMode: 'inline' },
        },
      });
    } else if (message.method === 'ui/notifications/initialized') {
      send({ method: 'ui/notifications/tool-input', params: input });
      send({ method: 'ui/notifications/tool-result', params: result });
      frame.dataset.appReady = 'true';
    } else if (message.method === 'ui/notifications/size-changed') {
      const height = Number(message.params && message.params.height);
      if (height > 0) frame.style.height = `${Math.min(height, 2000)}px`;
    } else if (message.method === 'tools/call' && message.id !== undefined) {
      callTool(message.id, message.params);
    } else if (message.id !== undefined) {
      send({
        id: message.id,
        error: {
          code: -32601,
          message: `${message.method} is not available in the Portico playground`,
        },
      });
    }
  });
  // Loaded only once the host listens, so that the View's first message is not missed.
  frame.src = frame.dataset.src;
}

document.addEventListener('DOMContentLoaded', () => {
  for (const code of document.querySelectorAll('code[data-setup]')) enhanceCopy(code);
  for (const picker of document.querySelectorAll('[data-picker]')) enhancePicker(picker);
  const authType = document.getElementById('authType');
  if (authType) enhanceCredentials(authType);
  const transport = document.getElementById('transport');
  if (transport) enhanceTransport(transport);
  for (const fieldset of document.querySelectorAll('form [data-array]')) enhanceArray(fieldset);
  for (const frame of document.querySelectorAll('iframe.app-frame')) hostApp(frame);
});
