// ext.js -- MessagePack extension values other than the timestamp.
// Owns: the Ext class. Must not touch: encoding (writer.js writes it).

/**
 * An extension value: a type in -128..127 and its bytes. Type -1 is the
 * timestamp, which decodes to a Date instead.
 */
export class Ext {
  constructor(type, data) {
    if (!Number.isInteger(type) || type < -128 || type > 127)
      throw new RangeError(`ext type must be an integer in -128..127, got ${type}`);
    this.type = type;
    this.data = data instanceof Uint8Array ? data : new Uint8Array(data);
  }
}
