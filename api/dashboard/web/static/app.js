// Dashboard behaviour that needs script: passkey ceremonies (WebAuthn) and
// nothing else. Every page works without it except passkeys themselves.
(function () {
  'use strict';

  function csrf() {
    var m = document.querySelector('meta[name="csrf-token"]');
    return m ? m.content : '';
  }
  function b64urlToBuf(s) {
    s = s.replace(/-/g, '+').replace(/_/g, '/');
    while (s.length % 4) s += '=';
    var bin = atob(s), out = new Uint8Array(bin.length);
    for (var i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
    return out.buffer;
  }
  function bufToB64url(buf) {
    var bytes = new Uint8Array(buf), bin = '';
    for (var i = 0; i < bytes.length; i++) bin += String.fromCharCode(bytes[i]);
    return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
  }
  function post(url, body) {
    return fetch(url, {
      method: 'POST', credentials: 'same-origin',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf() },
      body: JSON.stringify(body || {})
    }).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (j) {
        if (!r.ok) throw new Error(j.message || ('request failed (' + r.status + ')'));
        return j;
      });
    });
  }
  function creationOptions(o) {
    var pk = o.publicKey;
    pk.challenge = b64urlToBuf(pk.challenge);
    pk.user.id = b64urlToBuf(pk.user.id);
    (pk.excludeCredentials || []).forEach(function (c) { c.id = b64urlToBuf(c.id); });
    return { publicKey: pk };
  }
  function requestOptions(o) {
    var pk = o.publicKey;
    pk.challenge = b64urlToBuf(pk.challenge);
    (pk.allowCredentials || []).forEach(function (c) { c.id = b64urlToBuf(c.id); });
    return { publicKey: pk };
  }
  function serialize(cred) {
    var r = cred.response, out = {
      id: cred.id, rawId: bufToB64url(cred.rawId), type: cred.type,
      clientExtensionResults: cred.getClientExtensionResults ? cred.getClientExtensionResults() : {},
      response: { clientDataJSON: bufToB64url(r.clientDataJSON) }
    };
    if (cred.authenticatorAttachment) out.authenticatorAttachment = cred.authenticatorAttachment;
    if (r.attestationObject) {
      out.response.attestationObject = bufToB64url(r.attestationObject);
      if (r.getTransports) out.response.transports = r.getTransports();
    } else {
      out.response.authenticatorData = bufToB64url(r.authenticatorData);
      out.response.signature = bufToB64url(r.signature);
      if (r.userHandle) out.response.userHandle = bufToB64url(r.userHandle);
    }
    return out;
  }
  function showError(btn, msg) {
    var box = document.getElementById(btn.getAttribute('data-error') || 'passkey-error');
    if (box) { box.textContent = msg; box.hidden = false; box.focus(); } else { alert(msg); }
  }

  function run(btn) {
    if (!window.PublicKeyCredential) { showError(btn, 'This browser does not support passkeys.'); return; }
    var kind = btn.getAttribute('data-passkey');
    var base = btn.getAttribute('data-endpoint');
    btn.disabled = true;
    var extra = {};
    if (kind === 'register') {
      var nameField = document.getElementById(btn.getAttribute('data-name-field'));
      extra.name = nameField ? nameField.value : '';
      if (!extra.name.trim()) { btn.disabled = false; showError(btn, 'Give the passkey a name first.'); if (nameField) nameField.focus(); return; }
    }
    // data-next: where a passwordless sign-in returns to (the /link review).
    var next = btn.getAttribute('data-next');
    post(base + '/options', next ? { next: next } : {}).then(function (opts) {
      return kind === 'register'
        ? navigator.credentials.create(creationOptions(opts))
        : navigator.credentials.get(requestOptions(opts));
    }).then(function (cred) {
      extra.credential = serialize(cred);
      return post(base, extra);
    }).then(function (res) {
      window.location.assign(res.redirect || '/');
    }).catch(function (e) {
      btn.disabled = false;
      showError(btn, e && e.name === 'NotAllowedError' ? 'The passkey prompt was closed or timed out.' : (e.message || String(e)));
    });
  }

  document.addEventListener('click', function (ev) {
    var btn = ev.target.closest && ev.target.closest('[data-passkey]');
    if (btn) { ev.preventDefault(); run(btn); }
  });
})();
