import type { AttributeValue } from '@aws-sdk/client-dynamodb';

/**
 * The size DynamoDB counts for an item (against its 400 KB limit and for read and write units), by its rules:
 * each attribute's name (UTF-8) plus its value; a string its UTF-8 bytes, a binary its bytes, a number 1 byte per
 * two significant digits plus 1, a boolean or null 1 byte, a list or map 3 bytes plus 1 per element plus its
 * elements (a map's keys counted as names).
 */
export function itemBytes(item: Record<string, AttributeValue>): number {
  return Object.entries(item).reduce((sum, [name, value]) => sum + Buffer.byteLength(name) + valueBytes(value), 0);
}

function valueBytes(value: AttributeValue): number {
  if (value.S !== undefined) return Buffer.byteLength(value.S);
  if (value.N !== undefined) return numberBytes(value.N);
  if (value.B !== undefined) return value.B.byteLength;
  if (value.BOOL !== undefined || value.NULL !== undefined) return 1;
  if (value.L !== undefined) return 3 + value.L.reduce((sum, element) => sum + 1 + valueBytes(element), 0);
  if (value.M !== undefined)
    return 3 + Object.entries(value.M).reduce((sum, [key, element]) => sum + 1 + Buffer.byteLength(key) + valueBytes(element), 0);
  if (value.SS !== undefined) return value.SS.reduce((sum, text) => sum + Buffer.byteLength(text), 0);
  if (value.NS !== undefined) return value.NS.reduce((sum, text) => sum + numberBytes(text), 0);
  if (value.BS !== undefined) return value.BS.reduce((sum, bytes) => sum + bytes.byteLength, 0);
  throw new Error(`unknown attribute value ${JSON.stringify(value)}`);
}

/** Leading and trailing zeros are not stored. */
function numberBytes(text: string): number {
  const digits = text.replace(/^-/, '').replace('.', '').replace(/^0+/, '').replace(/0+$/, '');
  return Math.ceil(Math.max(digits.length, 1) / 2) + 1;
}
