/* Portcullis Hosted Payment Fields, served at /sdk/hosted-fields.js (wire-reference 7.4).
 *
 *   <script src="https://{gateway}/sdk/hosted-fields.js"></script>
 *   var hf = new HostedFields();
 *   hf.init({
 *     sessionToken: token,                               // from POST /api/v1/session/token (merchant backend)
 *     fields: { card: { id: 'card', placeholder: 'Card number' },
 *               expiry: { id: 'expiry', placeholder: 'MM/YY' },
 *               cvv: { id: 'cvv', placeholder: 'CVV' } },
 *     style: { input: { 'font-size': '16px', color: '#222' }, '::placeholder': { color: '#999' } }
 *   });
 *   hf.cardOn.input = function (e) { e.valid; };        // also focus and blur; expiryOn.*, cvvOn.*
 *   hf.onSubmitResult = function (data) { if (data.result === 'success') { ... backend: processing call ... } };
 *   hf.collectIframesData();
 *
 * Each field is a frame of the gateway inside the element with that id. The card data go from the frames to the
 * gateway; this page only learns whether the fields are valid and whether the collection succeeded. Messages
 * are accepted only from the gateway's origin and only from this instance's own frames.
 * The gateway's origin is that of this script; pass { gatewayUrl } to the constructor to name it otherwise. */
(function (window, document) {
  'use strict';

  var NS = 'portcullis-hf';
  var FIELDS = ['card', 'expiry', 'cvv'];
  var TITLES = { card: 'Card number', expiry: 'Card expiry date', cvv: 'Card security code' };
  var EVENTS = ['input', 'focus', 'blur'];
  var script = document.currentScript;
  var SCRIPT_ORIGIN = script && script.src ? new URL(script.src, window.location.href).origin : null;

  function noop() {}

  /* @shared device-id.js */

  /* @shared random-id.js */

  /** Handlers of one field: input, focus and blur receive { valid, empty }; ready receives {}. */
  function FieldHandlers() {
    this.input = noop;
    this.focus = noop;
    this.blur = noop;
    this.ready = noop;
  }

  /** Calls a merchant handler; an exception in it is re-thrown outside the message listener. */
  function call(fn, arg) {
    if (typeof fn !== 'function') return;
    try {
      fn(arg);
    } catch (err) {
      setTimeout(function () {
        throw err;
      });
    }
  }

  function HostedFields(options) {
    if (!(this instanceof HostedFields)) return new HostedFields(options);
    this.cardOn = new FieldHandlers();
    this.expiryOn = new FieldHandlers();
    this.cvvOn = new FieldHandlers();
    this.onSubmitResult = noop;
    this.onReady = noop;
    this._origin = options && options.gatewayUrl ? new URL(options.gatewayUrl, window.location.href).origin : SCRIPT_ORIGIN;
    this._instance = randomId();
    this._frames = {};
    this._ready = {};
    this._queue = [];
    this._requests = {};
    this._token = null;
    this._listener = this._onMessage.bind(this);
    window.addEventListener('message', this._listener);
  }

  HostedFields.prototype.init = function (config) {
    var self = this;
    if (!config || typeof config.sessionToken !== 'string' || config.sessionToken === '') throw new Error('HostedFields.init: sessionToken is required');
    if (!config.fields || typeof config.fields !== 'object') throw new Error('HostedFields.init: fields is required');
    if (!this._origin) throw new Error('HostedFields: load this script from the gateway, or pass { gatewayUrl } to the constructor');
    if (this._token !== null) throw new Error('HostedFields.init: already initialised');
    var specs = {};
    FIELDS.forEach(function (field) {
      var spec = config.fields[field];
      if (!spec || typeof spec.id !== 'string') throw new Error('HostedFields.init: fields.' + field + '.id is required');
      if (!document.getElementById(spec.id)) throw new Error('HostedFields.init: no element with id "' + spec.id + '"');
      specs[field] = spec;
    });
    this._token = config.sessionToken;
    this._style = config.style && typeof config.style === 'object' ? config.style : {};
    FIELDS.forEach(function (field) {
      var spec = specs[field];
      var container = document.getElementById(spec.id);
      var frame = document.createElement('iframe');
      frame.src = self._origin + '/hosted-fields/frame/' + field;
      frame.name = 'portcullis-hf-' + field + '-' + self._instance;
      frame.title = TITLES[field];
      frame.setAttribute('frameborder', '0');
      frame.setAttribute('scrolling', 'no');
      frame.setAttribute('allowtransparency', 'true');
      frame.setAttribute('referrerpolicy', 'origin');
      frame.style.border = '0';
      frame.style.display = 'block';
      frame.style.width = '100%';
      frame.style.height = container.clientHeight > 0 ? '100%' : '2.5em';
      frame.style.background = 'transparent';
      frame.addEventListener('load', function () {
        self._post(field, { type: 'init', token: self._token, field: field, placeholder: typeof spec.placeholder === 'string' ? spec.placeholder : '', style: self._style, device: deviceId() });
      });
      container.appendChild(frame);
      self._frames[field] = frame;
    });
    return this;
  };

  /**
   * Asks the frames to send the card to the gateway. The answer arrives in onSubmitResult:
   * { result: 'success', message, card: { brand, last4, expiry } } or { result: 'error', message, errors? }.
   */
  HostedFields.prototype.collectIframesData = function () {
    var self = this;
    if (!this._frames.card) {
      call(this.onSubmitResult, { result: 'error', message: 'HostedFields is not initialised.' });
      return;
    }
    var run = function () {
      var id = randomId();
      self._requests[id] = true;
      self._post('card', { type: 'collect', requestId: id });
    };
    if (this._allReady()) run();
    else this._queue.push(run);
  };

  /** Removes the frames and stops listening. */
  HostedFields.prototype.destroy = function () {
    window.removeEventListener('message', this._listener);
    var frames = this._frames;
    FIELDS.forEach(function (field) {
      var frame = frames[field];
      if (frame && frame.parentNode) frame.parentNode.removeChild(frame);
    });
    this._frames = {};
    this._queue = [];
  };

  HostedFields.prototype._allReady = function () {
    var ready = this._ready;
    return FIELDS.every(function (field) {
      return ready[field] === true;
    });
  };

  HostedFields.prototype._post = function (field, message) {
    var frame = this._frames[field];
    if (!frame || !frame.contentWindow) return;
    message.source = NS;
    message.instance = this._instance;
    // targetOrigin: if the frame was navigated away from the gateway, the message (and the token) is not delivered.
    frame.contentWindow.postMessage(message, this._origin);
  };

  HostedFields.prototype._fieldOf = function (source) {
    for (var i = 0; i < FIELDS.length; i++) {
      var frame = this._frames[FIELDS[i]];
      if (frame && frame.contentWindow === source) return FIELDS[i];
    }
    return null;
  };

  HostedFields.prototype._onMessage = function (event) {
    if (event.origin !== this._origin) return;
    var data = event.data;
    if (!data || typeof data !== 'object' || data.source !== NS || data.instance !== this._instance) return;
    var field = this._fieldOf(event.source);
    if (field === null || data.field !== field) return;
    var handlers = this[field + 'On'];
    if (data.type === 'ready') {
      if (this._ready[field]) return;
      this._ready[field] = true;
      call(handlers.ready, {});
      if (this._allReady()) {
        call(this.onReady, {});
        var queued = this._queue.splice(0);
        queued.forEach(function (run) {
          run();
        });
      }
      return;
    }
    if (data.type === 'event' && EVENTS.indexOf(data.event) >= 0) {
      call(handlers[data.event], { valid: data.valid === true, empty: data.empty === true });
      return;
    }
    if (data.type === 'result' && field === 'card' && this._requests[data.requestId]) {
      delete this._requests[data.requestId];
      call(this.onSubmitResult, sanitizeResult(data.data));
    }
  };

  /** Only the documented members of a result reach the merchant's handler. */
  function sanitizeResult(data) {
    var out = { result: data && data.result === 'success' ? 'success' : 'error', message: data && typeof data.message === 'string' ? data.message : '' };
    if (data && data.card && typeof data.card === 'object') {
      out.card = { brand: String(data.card.brand || ''), last4: String(data.card.last4 || ''), expiry: String(data.card.expiry || '') };
    }
    if (data && Array.isArray(data.errors)) {
      out.errors = data.errors.map(function (e) {
        return { field: String(e.field || ''), message: String(e.message || '') };
      });
    }
    return out;
  }

  window.HostedFields = HostedFields;
})(window, document);
