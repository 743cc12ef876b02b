/* Portcullis alternative-method pages: the waiting pages poll the payment's status and move on by themselves,
   the QR page counts its code down, and the fields form shows country-dependent fields only for their
   countries. Everything also works without this file (a status link, plain form POSTs). No inline code:
   configuration comes from <script type="application/json" id="config">. */
(function () {
  'use strict';

  var doc = document;
  var page = doc.body ? doc.body.getAttribute('data-page') || '' : '';
  var config = {};
  var el = doc.getElementById('config');
  if (el) {
    try {
      config = JSON.parse(el.textContent || '{}') || {};
    } catch (e) {
      config = {};
    }
  }

  function each(list, fn) {
    Array.prototype.forEach.call(list, fn);
  }

  // The page's messages in its locale (src/web/locales); English is the fallback.
  var T = config.messages || {};
  function t(key, fallback) {
    return T[key] || fallback;
  }

  // Copy buttons beside payment details (shown only where the clipboard can be written).
  each(doc.querySelectorAll('[data-copy]'), function (button) {
    if (!navigator.clipboard || !window.isSecureContext) return;
    button.hidden = false;
    var label = button.firstChild ? button.firstChild.textContent : '';
    button.addEventListener('click', function () {
      var source = doc.getElementById(button.getAttribute('data-copy'));
      if (!source) return;
      navigator.clipboard.writeText(source.textContent.trim()).then(
        function () {
          button.firstChild.textContent = t('copy.done', 'Copied');
          button.classList.add('is-done');
          setTimeout(function () {
            button.firstChild.textContent = label;
            button.classList.remove('is-done');
          }, 2000);
        },
        function () {
          button.firstChild.textContent = t('copy.failed', 'Select the text to copy it');
        }
      );
    });
  });

  // One submission per form: later submits of the same form are dropped.
  each(doc.querySelectorAll('form[data-once]'), function (form) {
    form.addEventListener('submit', function (e) {
      if (form.hasAttribute('data-submitting')) {
        e.preventDefault();
        return;
      }
      form.setAttribute('data-submitting', '');
    });
  });

  // ------------------------------------------------------------------------------------------------
  // Waiting pages

  function pad(n) {
    return (n < 10 ? '0' : '') + n;
  }

  function initWait() {
    var status = doc.getElementById('apm-status');
    var offset = 0;
    if (config.serverNow) {
      var serverNow = Date.parse(config.serverNow);
      if (isFinite(serverNow)) offset = serverNow - Date.now();
    }
    var done = false;

    function go() {
      if (done) return;
      done = true;
      if (status) status.textContent = t('wait.changed', 'The payment status changed. Loading\u2026');
      window.location.replace(config.pageUrl);
    }

    function poll() {
      if (done || !config.statusUrl) return;
      fetch(config.statusUrl, { credentials: 'same-origin', cache: 'no-store', headers: { accept: 'application/json' } })
        .then(function (res) {
          return res.ok ? res.json() : null;
        })
        .then(function (body) {
          if (body && body.state && body.state !== 'waiting') go();
          else setTimeout(poll, config.pollMs || 2000);
        })
        .catch(function () {
          setTimeout(poll, (config.pollMs || 2000) * 2);
        });
    }
    setTimeout(poll, config.pollMs || 2000);

    // QR code lifetime, on the server's clock; at zero the server is asked at once.
    var expiresAt = config.expiresAt ? Date.parse(config.expiresAt) : NaN;
    var time = doc.getElementById('qr-time');
    var box = doc.getElementById('qr-countdown');
    if (!isFinite(expiresAt) || !time || !box) return;
    var label = box.querySelector('span');
    if (label) {
      label.textContent = t('wait.qrExpiresIn', 'The code expires in') + ' ';
      label.appendChild(time);
    }
    function tick() {
      var left = expiresAt - (Date.now() + offset);
      if (left <= 0) {
        time.textContent = '00:00';
        box.classList.add('is-urgent');
        if (status) status.textContent = t('wait.qrExpired', 'The QR code has expired.');
        setTimeout(poll, 0);
        return;
      }
      var s = Math.ceil(left / 1000);
      time.textContent = pad(Math.floor(s / 60)) + ':' + pad(s % 60);
      box.classList.toggle('is-urgent', s <= 15);
      setTimeout(tick, 1000);
    }
    tick();
  }

  // ------------------------------------------------------------------------------------------------
  // Fields form: fields for some billing countries only

  function initFields() {
    var country = doc.querySelector('select[name="billing_address.country"]');
    var conditional = doc.querySelectorAll('[data-required-in], [data-exempt-in]');
    if (country) {
      var sync = function () {
        each(conditional, function (wrap) {
          var only = (wrap.getAttribute('data-required-in') || '').split(' ').filter(Boolean);
          var except = (wrap.getAttribute('data-exempt-in') || '').split(' ').filter(Boolean);
          var c = country.value;
          var show = c !== '' && (only.length === 0 || only.indexOf(c) >= 0) && except.indexOf(c) < 0;
          wrap.hidden = !show;
          each(wrap.querySelectorAll('input, select'), function (input) {
            input.disabled = !show;
            input.required = show;
          });
          if (wrap.hasAttribute('data-hint-conditional')) {
            var hint = wrap.querySelector('.hint');
            if (hint) hint.hidden = true;
          }
        });
      };
      country.addEventListener('change', sync);
      sync();
    }
    var summary = doc.getElementById('error-summary');
    if (config.focusErrors && summary) summary.focus();
  }

  if (page.indexOf('apm-wait-') === 0) initWait();
  else if (page === 'apm-fields') initFields();
})();
