/*
 * Drives one native 3-D Secure 2 step on our page (src/web/threeds2-page.ts): posts the step into the frame, then
 * posts the result back. The 3DS Method completes when its frame loads (threeDSCompInd Y), or not within the
 * timeout (N); without a method URL it is U. The challenge ends when the ACS's page (or the 3DS server's
 * notification page) tells us the transaction status by postMessage: an object or JSON with transStatus, or a
 * base64url CRes. The Continue button sends whatever is known.
 */
(function () {
  'use strict';
  var doc = document;
  var configEl = doc.getElementById('config');
  var config = configEl ? JSON.parse(configEl.textContent || '{}') : {};
  var step = doc.getElementById('threeds2-step');
  var result = doc.getElementById('threeds2-result');
  var value = doc.getElementById('threeds2-value');
  var frame = doc.getElementById('threeds2-frame');
  if (!result || !value) return;
  var done = false;

  function finish(v) {
    if (done) return;
    done = true;
    if (v) value.value = v;
    result.submit();
  }

  function decode(text) {
    try {
      return JSON.parse(text);
    } catch (e) {
      try {
        return JSON.parse(atob(text.replace(/-/g, '+').replace(/_/g, '/')));
      } catch (e2) {
        return undefined;
      }
    }
  }

  function statusOf(data) {
    var o = typeof data === 'string' ? decode(data) : data;
    if (o && typeof o === 'object') {
      if (typeof o.transStatus === 'string') return o.transStatus;
      if (typeof o.cres === 'string') return statusOf(o.cres);
    }
    return undefined;
  }

  if (config.kind === 'method') {
    if (!config.hasStep || !step || !frame) return finish('U');
    var timer = setTimeout(function () { finish('N'); }, Number(config.timeoutMs) || 10000);
    step.submit();
    frame.addEventListener('load', function () {
      clearTimeout(timer);
      finish('Y');
    });
    return;
  }
  window.addEventListener('message', function (event) {
    if (frame && event.source !== frame.contentWindow) return;
    var status = statusOf(event.data);
    if (status) finish(status);
  });
  if (step) step.submit();
})();
