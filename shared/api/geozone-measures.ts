import area from '@turf/area';
import length from '@turf/length';
import polygonToLine from '@turf/polygon-to-line';
import type { GeozoneGeometry } from '../schemas/geozone';

/** Area in square metres and perimeter in metres of a geozone (every ring counts towards the perimeter). */
export function geozoneMeasures(geometry: GeozoneGeometry, radius: number | null): { area: number; perimetr: number } {
  if (geometry.type === 'Point') {
    const r = radius ?? 0;
    return { area: round(Math.PI * r * r), perimetr: round(2 * Math.PI * r) };
  }
  const lines = polygonToLine(geometry);
  const features = lines.type === 'FeatureCollection' ? lines.features : [lines];
  const kilometres = features.reduce((sum, feature) => sum + length(feature, { units: 'kilometers' }), 0);
  return { area: round(area(geometry)), perimetr: round(kilometres * 1000) };
}

const round = (value: number) => Math.round(value * 100) / 100;
