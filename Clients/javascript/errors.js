// Typed errors of the Tickwire browser client, mirroring the Swift ones (CodecError.swift,
// FrameError.swift, SchemaError.swift, SchemaDecodingError.swift, ZlibError.swift): each carries
// its `kind` (the case name PROTOCOL.md section 7 uses) and the values that explain it.

/**
 * Formats a value the way the vectors' `# error:` lines and Swift's descriptions show it.
 * @param {unknown} value
 * @returns {string}
 */
function show(value) {
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof TickwireError) return value.signature;
  return String(value);
}

/** The base class of every error the client library throws. */
export class TickwireError extends Error {
  /**
   * @param {string} kind The case name, as in PROTOCOL.md section 7 (`truncated`, `frameTooLarge` …).
   * @param {Record<string, unknown>} details The values that explain it, in the order Swift lists them.
   * @param {string} message Words for a person.
   * @param {boolean} [labelled] Whether `signature` names the values (`f(a: 1)`) or not (`f(1)`).
   */
  constructor(kind, details, message, labelled = true) {
    super(message);
    this.name = new.target.name;
    /** @type {string} */
    this.kind = kind;
    /** @type {Record<string, unknown>} */
    this.details = details;
    /** @type {boolean} */
    this.labelled = labelled;
  }

  /**
   * The error as the vectors write it: `kind`, or `kind(label: value, …)`.
   * @returns {string}
   */
  get signature() {
    const entries = Object.entries(this.details);
    if (entries.length === 0) return this.kind;
    const parts = entries.map(([key, value]) => (this.labelled ? `${key}: ${show(value)}` : show(value)));
    return `${this.kind}(${parts.join(', ')})`;
  }
}

/** A snapshot delta that cannot be decoded (PROTOCOL.md 7.1; Swift's `CodecError`). */
export class CodecError extends TickwireError {
  /**
   * @param {string} kind One of `truncated`, `malformedVarint`, `malformedGammaCode`, `valueOutOfRange`,
   *   `entityIDOutOfRange`, `unknownEntityType`, `unknownEntity`, `duplicateEntity`, `entityIndexOutOfRange`,
   *   `tooManyEntities`, `inputTooLarge`, `baselineMissing`, `baselineMismatch`, `schemaMismatch`, `trailingData`,
   *   `malformedRangeCode`, `invalidUTF8` (a text field's bytes, protocol 1.2).
   * @param {Record<string, unknown>} details
   * @param {string} message
   */
  constructor(kind, details, message) {
    super(kind, details, message);
  }
}

/** A compressed body that cannot be inflated (Swift's `ZlibError`). */
export class ZlibError extends TickwireError {
  /**
   * @param {string} kind `corruptData`, `truncated`, `inflatedSizeExceeded` or `ratioExceeded`.
   * @param {Record<string, unknown>} details
   * @param {string} message
   */
  constructor(kind, details, message) {
    super(kind, details, message);
  }

  /** @returns {boolean} Whether the error is an inflation limit (size or ratio), not corrupt data. */
  get isLimitExceeded() {
    return this.kind === 'inflatedSizeExceeded' || this.kind === 'ratioExceeded';
  }
}

const unlabelledFrameKinds = new Set(['reservedMessageType', 'unknownMessageType', 'unknownCompressionMode', 'inflation', 'zlibSetup', 'notApplicationType']);

/** A frame that breaks the envelope, a message layout or a frame limit (PROTOCOL.md 7.2; Swift's `FrameError`). */
export class FrameError extends TickwireError {
  /**
   * @param {string} kind A case of PROTOCOL.md 7.2 (`emptyFrame`, `truncated`, `lengthExceeded` …).
   * @param {Record<string, unknown>} details The offending values, named as in Swift.
   * @param {string} message
   */
  constructor(kind, details, message) {
    super(kind, details, message, !unlabelledFrameKinds.has(kind));
  }
}

/** A schema declaration that breaks a rule of PROTOCOL.md 3.1 (Swift's `SchemaError`). */
export class SchemaError extends TickwireError {
  /**
   * @param {string} kind `noEntityTypes`, `tooManyEntityTypes`, `tooManyFields`, `badName`, `duplicateTypeName`,
   *   `duplicateFieldName` or `invalidKind`.
   * @param {Record<string, unknown>} details
   * @param {string} message
   */
  constructor(kind, details, message) {
    super(kind, details, message);
  }
}

/** Canonical schema bytes (PROTOCOL.md 3.4) that cannot be decoded (Swift's `SchemaDecodingError`). */
export class SchemaDecodingError extends TickwireError {
  /**
   * @param {string} kind `inputTooLarge`, `truncated`, `unsupportedVersion`, `malformedVarint`, `countOverLimit`,
   *   `invalidUTF8`, `unknownKindTag`, `parameterOutOfRange`, `trailingBytes`, `invalidSchema` or `notCanonical`.
   * @param {Record<string, unknown>} details
   * @param {string} message
   */
  constructor(kind, details, message) {
    super(kind, details, message);
  }
}

/**
 * A matchmaker that refused a request, or could not be asked (Protocol/MATCHMAKER.md section 4;
 * Swift's `MatchmakerError`): `status` is the HTTP status (0 when no answer came), `code` the
 * answer's `error` (`roomFull`, `unknownMode`, `tooManyRequests` …) and `reason` its words for a person.
 * Two codes are the client's own: `unreachable` (status 0: the request failed or timed out) and
 * `malformedAnswer` (a `200` whose body is not what section 2 or 3 describes).
 */
export class MatchmakerError extends TickwireError {
  /**
   * @param {number} status The HTTP status, or 0.
   * @param {string} code The contract's error code.
   * @param {string} reason Words for a person.
   * @param {number} [retryAfter] Seconds the matchmaker asked to wait (`Retry-After`, with `429`).
   */
  constructor(status, code, reason, retryAfter) {
    super(code, { status, reason }, status ? `matchmaker refused (${status} ${code}): ${reason}` : `matchmaker ${code}: ${reason}`);
    /** @type {number} */
    this.status = status;
    /** @type {string} */
    this.code = code;
    /** @type {string} */
    this.reason = reason;
    /** @type {number | undefined} */
    this.retryAfter = retryAfter;
  }

  /** @returns {boolean} Whether asking again later may succeed: no answer, `429`, or a `5xx` (no live process, directory unreachable). */
  get isRetryable() {
    return this.status === 0 || this.status === 429 || this.status >= 500;
  }
}
