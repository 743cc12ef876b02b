/**
 * The home's further widgets: each screen's owner adds one line here (risk, money, reconciliation, disputes...),
 * shown under the figures to operators whose role permits `needs`. A widget loads its own figures.
 */
import type { ComponentType } from 'react';
import type { Permission } from '../api/client';
import { RiskHomeWidget } from './Risk';
import { Unreconciled } from './Reconciliation';

export interface HomeWidget {
  id: string;
  needs: Permission;
  Widget: ComponentType;
}

export const HOME_WIDGETS: HomeWidget[] = [
  { id: 'risk', needs: 'risk.read', Widget: RiskHomeWidget },
  { id: 'Reconciliation', needs: 'reconciliation.read', Widget: Unreconciled },
];
