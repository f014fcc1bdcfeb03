const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/** Strict RFC 4648 base64: standard alphabet, correct padding, no whitespace. */
export function isStrictBase64(text: string): boolean {
  return text.length % 4 === 0 && BASE64.test(text);
}
