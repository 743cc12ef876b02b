  /** 16 random bytes in hex: an SDK instance's id, a request's id, a nonce. Shared by hosted-fields.js and field.js. */
  function randomId() {
    var bytes = new Uint8Array(16);
    window.crypto.getRandomValues(bytes);
    return Array.prototype.map.call(bytes, function (b) {
      return (b < 16 ? '0' : '') + b.toString(16);
    }).join('');
  }
