/** The empty body: one shared instance, since a stream starts with and returns to an empty body several times per
 *  request, and each new empty Uint8Array costs an ArrayBuffer. Nothing can be written into it. */
export const NO_BYTES: Uint8Array = new Uint8Array(0);
