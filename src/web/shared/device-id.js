  /*
   * The payer's device id for the risk engine (src/domain/risk/device.ts): 16 random bytes in base64url, kept in
   * this origin's storage so that the payer's later payments carry the same one. Storage refused (a private window,
   * a third-party frame): one for this page. Shared by checkout.js, hosted-fields.js and field.js (web/static-file.ts).
   */
  var pageDevice;
  function deviceId() {
    var key = 'portcullis.device';
    try {
      var kept = window.localStorage.getItem(key);
      if (kept && /^[A-Za-z0-9_-]{16,64}$/.test(kept)) return kept;
    } catch (e) {
      /* no storage */
    }
    if (!pageDevice) {
      var bytes = new Uint8Array(16);
      window.crypto.getRandomValues(bytes);
      pageDevice = btoa(String.fromCharCode.apply(null, Array.prototype.slice.call(bytes))).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
    }
    try {
      window.localStorage.setItem(key, pageDevice);
    } catch (e) {
      /* kept for this page only */
    }
    return pageDevice;
  }
