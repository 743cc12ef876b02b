/**
 * A MID (merchant account at an acquirer, through one connector): pure, the store maps its rows onto it.
 */
import type { DailyCaps } from '../volume-caps.ts';
import type { SealedSecret } from '../secret.ts';

export type PaymentMode = 'SMS' | 'DMS' | 'SMS/DMS';

export interface Mid {
  id: string;
  merchantId: string;
  name: string;
  connector: string;
  paymentMode: PaymentMode;
  cardOnFileSupport: boolean;
  enabled: boolean;
  priority: number;
  /** ISO 4217 codes the MID takes; null: any. */
  currencies: string[] | null;
  /** Decimal amounts in the payment's currency (major units); null: no limit. */
  minAmount: string | null;
  maxAmount: string | null;
  /** Daily volume caps per currency (issue 15), as the admin API takes them; null: none. */
  dailyCaps: DailyCaps | null;
  descriptor: string | null;
  /** The connector's own settings (not secret), validated by the connector's settings schema. */
  settings: Record<string, unknown>;
  /** The connector's credentials, sealed (open with openMidCredentials); null: none set. */
  sealedCredentials: SealedSecret | null;
}
