import * as z from 'zod';

/** A markdown table of a zod object schema: one row per key, with what it takes, its default and its meaning. */
interface JsonField {
  type?: string;
  enum?: unknown[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  format?: string;
  default?: unknown;
}

function takes(field: JsonField): string {
  if (field.enum) return `one of ${field.enum.map((value) => `\`${String(value)}\``).join(', ')}`;
  const bounds = [
    field.minimum !== undefined ? `≥ ${field.minimum}` : field.exclusiveMinimum !== undefined ? `> ${field.exclusiveMinimum}` : '',
    field.maximum !== undefined && field.maximum < Number.MAX_SAFE_INTEGER ? `≤ ${field.maximum}` : '',
  ].filter(Boolean);
  const kind = field.type === 'integer' ? 'whole number' : field.type === 'number' ? 'number' : field.format === 'uri' ? 'URL' : 'text';
  return [kind, ...bounds].join(' ');
}

function defaultOf(schema: z.ZodType, field: JsonField): string {
  if (field.default !== undefined) return field.default === '' ? 'empty' : `\`${String(field.default)}\``;
  return schema.safeParse(undefined).success ? 'unset' : '**required**';
}

export const cell = (value: string) => value.replaceAll('|', '\\|').replaceAll('\n', ' ');

export function table(schema: z.ZodObject, label: string): string[] {
  const rows = Object.entries(schema.shape as Record<string, z.ZodType>).map(([key, field]) => {
    const json = z.toJSONSchema(field, { io: 'input', unrepresentable: 'any' }) as JsonField;
    return `| \`${key}\` | ${cell(takes(json))} | ${cell(defaultOf(field, json))} | ${cell(field.description ?? '')} |`;
  });
  return [`| ${label} | Takes | Default | Meaning |`, '| --- | --- | --- | --- |', ...rows];
}
