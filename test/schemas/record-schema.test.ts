import { describe, expect, it } from 'vitest';
import { geozoneSchema } from '../../shared/schemas/geozone';
import { RecordRejectedError, parseRecord } from '../../shared/store/record-schema';

describe('records refused by their storage schema', () => {
  const zone = {
    id: 7,
    name: 'Depot',
    type: 'circle',
    parentId: '6f1c1d2e-3a4b-4c5d-8e9f-0a1b2c3d4e5f',
    radius: 100,
    description: '',
    geometry: { type: 'Point', coordinates: [37.6, 55.7] },
    area: 31_415.93,
    perimetr: 628.32,
    createDate: '2026-02-10T10:00:00.000Z',
  };
  const refusal = (record: unknown) => {
    try {
      parseRecord(geozoneSchema, record, 'geozone', { area: 'geometry', perimetr: 'geometry' });
    } catch (error) {
      expect(error).toBeInstanceOf(RecordRejectedError);
      return (error as RecordRejectedError).issues.map((issue) => issue.path);
    }
    throw new Error('the record was not refused');
  };

  it('names a computed field by the input it is computed from, once', () => {
    expect(refusal({ ...zone, area: Number.NaN, perimetr: Number.NaN })).toEqual(['geometry']);
  });

  it('names an input field by its full path', () => {
    expect(refusal({ ...zone, name: 5, geometry: { type: 'Point', coordinates: [37.6, 'north'] } })).toEqual(['name', 'geometry.coordinates.1']);
  });

  it('answers the parsed record when it is whole', () => {
    expect(parseRecord(geozoneSchema, zone, 'geozone')).toMatchObject({ id: 7, version: 1 });
  });
});
