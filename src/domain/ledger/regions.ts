/**
 * Card regions for fees (issue 27): a card is domestic when its issuing country (the BIN table) is the merchant's
 * country, intra-region when both lie in one region of the table below, international otherwise (an unknown
 * issuer too: the dearest assumption is the safe one for the platform, and the operator sees it on the entry).
 */
export type CardRegion = 'domestic' | 'intra_region' | 'international';
export const CARD_REGIONS: readonly CardRegion[] = ['domestic', 'intra_region', 'international'];

/** Fee regions: the card schemes price the European Economic Area (with the UK and Switzerland) as one. */
const REGIONS: Readonly<Record<string, readonly string[]>> = {
  europe: ('AT BE BG HR CY CZ DK EE FI FR DE GR HU IE IT LV LT LU MT NL PL PT RO SK SI ES SE IS LI NO GB CH ' +
    'MC SM VA AD GI').split(' '),
  north_america: ['US', 'CA'],
};

const REGION_OF: ReadonlyMap<string, string> = new Map(Object.entries(REGIONS).flatMap(([region, countries]) => countries.map((c) => [c, region] as const)));

export function cardRegion(issuerCountry: string | undefined, merchantCountry: string | undefined): CardRegion {
  if (!issuerCountry || !merchantCountry) return 'international';
  if (issuerCountry === merchantCountry) return 'domestic';
  const region = REGION_OF.get(issuerCountry);
  return region !== undefined && region === REGION_OF.get(merchantCountry) ? 'intra_region' : 'international';
}
