import type { Geozone } from '../../shared/schemas/geozone';

/** Area the synthetic fleet drives in: about 110 × 130 km. */
export const REGION = { minLat: 55, maxLat: 56, minLon: 37, maxLon: 39 } as const;

const M_PER_DEG = 111_195;

/** `count` irregular polygons (12–40 vertices, 150 m – 2 km across), every fifth with a hole, seeded. */
export function syntheticZones(count: number, random: () => number, firstId = 1): Geozone[] {
  const zones: Geozone[] = [];
  for (let i = 0; i < count; i++) {
    const lat = REGION.minLat + random() * (REGION.maxLat - REGION.minLat);
    const lon = REGION.minLon + random() * (REGION.maxLon - REGION.minLon);
    const radius = 150 + random() * 1_850;
    const vertices = 12 + Math.floor(random() * 29);
    const ring = (scale: number) => {
      const points: [number, number][] = [];
      for (let v = 0; v < vertices; v++) {
        const angle = (2 * Math.PI * v) / vertices;
        const r = radius * scale * (0.7 + 0.3 * random());
        points.push([lon + (r * Math.cos(angle)) / (M_PER_DEG * Math.cos((lat * Math.PI) / 180)), lat + (r * Math.sin(angle)) / M_PER_DEG]);
      }
      points.push(points[0]!);
      return points;
    };
    const rings = i % 5 === 0 ? [ring(1), ring(0.3).reverse()] : [ring(1)];
    zones.push({
      id: firstId + i,
      name: `zone ${firstId + i}`,
      type: 'polygon',
      parentId: '7d0b1c3e-2f4a-4b5c-8d6e-9f0a1b2c3d4e',
      radius: null,
      description: '',
      geometry: { type: 'Polygon', coordinates: rings },
      area: 0,
      perimetr: 0,
      createDate: '2026-01-01T00:00:00.000Z',
      version: 1,
    });
  }
  return zones;
}
