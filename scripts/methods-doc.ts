// Prints docs/merchants/methods.md from the method catalog: node --import tsx scripts/methods-doc.ts > docs/merchants/methods.md
import { renderMethodsDoc } from '../src/domain/methods/doc.ts';

process.stdout.write(renderMethodsDoc());
