/**
 * RFC 9110 §5 field syntax, for header names and values that come from configuration: a CR or LF in
 * a value would split the request (header injection), so such a value is refused before it is sent.
 */

/** RFC 9110 §5.1: field-name = token; token = 1*tchar. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * RFC 9110 §5.5: field-value = *field-content; field-content = field-vchar [ 1*( SP / HTAB /
 * field-vchar ) field-vchar ]; field-vchar = VCHAR / obs-text. No CR, LF, NUL or other control
 * character, no leading or trailing whitespace, nothing above U+00FF.
 */
const FIELD_VALUE = /^(?:[\x21-\x7E\x80-\xFF](?:[\t\x20-\x7E\x80-\xFF]*[\x21-\x7E\x80-\xFF])?)?$/;

export function isFieldName(name: string): boolean {
  return TOKEN.test(name);
}

export function isFieldValue(value: string): boolean {
  return FIELD_VALUE.test(value);
}
