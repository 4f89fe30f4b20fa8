import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod';
import { ExportQuery, type ImportAnswer, ImportQuery } from '../../../../contract/export.js';
import { Areas, Paths } from '../../../../contract/paths.js';
import { readBackErrorText } from '../../../../contract/stats-queries.js';
import { Forbidden, NotFound } from '../../../domain/domain-errors.js';
import {
  NOT_A_KIND,
  refuseLine,
  TESTS_NOT_IMPORTED,
} from '../../../services/export/import-service.js';
import { within } from '../area.js';
import { ID } from '../examples.js';
import { gunzipBody } from '../tests/gzip-body.js';

const FOREIGN_PROJECT = new Forbidden('project');
const NDJSON = 'application/x-ndjson';

/** An export's text as a download (the API's route and the dashboard's send it alike). */
export function sendExport(reply: FastifyReply, query: ExportQuery, text: AsyncIterable<string>) {
  const csv = query.format === 'csv';
  reply
    .type(csv ? 'text/csv; charset=utf-8' : `${NDJSON}; charset=utf-8`)
    .header(
      'content-disposition',
      `attachment; filename="${query.kind}-${query.projectId.replace(/[^\w-]/g, '_')}.${csv ? 'csv' : 'ndjson'}"`,
    );
  // Pulled a chunk at a time as the socket drains: a page is read only when the last is sent.
  return reply.send(Readable.from(text, { objectMode: false }));
}

/** A project's records out (NDJSON or CSV, streamed) and back in (NDJSON): docs/export.md. */
export const exportRoutes: FastifyPluginAsyncZod = async (app) => {
  const { exports, imports } = app.services;

  // The import's body is read by the service as it arrives (spooled, checked, then stored), never
  // held whole in memory: the parser hands the stream on as it is.
  app.addContentTypeParser(NDJSON, (_request, payload, done) => done(null, payload));

  app.get(
    within(Areas.stats, Paths.exportRecords),
    {
      schema: {
        summary:
          "Stream a project's events, metrics or test results, oldest first: NDJSON (a header line, then a record a line) or CSV",
        querystring: ExportQuery,
      },
      config: {
        invalid: readBackErrorText,
        docs: {
          success: {
            example: '{"format":"ci-stats-records","version":1,"kind":"metrics"}\n',
          },
          throws: [FOREIGN_PROJECT, new NotFound('record')],
        },
      },
    },
    async (request, reply) => {
      const { query } = request;
      return sendExport(reply, query, await exports.open(request.account, query));
    },
  );

  app.post(
    within(Areas.stats, Paths.importRecords),
    {
      schema: {
        summary:
          'Import an NDJSON export into a project (application/x-ndjson, may be gzip-compressed); every line is checked before any is stored',
        querystring: ImportQuery,
      },
      config: {
        docs: {
          success: { example: { projectId: ID, kind: 'metrics', imported: 1000, skipped: 0 } },
          throws: [FOREIGN_PROJECT, refuseLine(2, NOT_A_KIND), refuseLine(1, TESTS_NOT_IMPORTED)],
        },
      },
      preParsing: gunzipBody,
    },
    async (request, reply): Promise<ImportAnswer> => {
      if (!(request.body instanceof Readable)) {
        return reply
          .code(415)
          .send({ error: `Send the export as ${NDJSON}.` }) as unknown as ImportAnswer;
      }
      return imports.run(request.account, request.query.projectId, request.body);
    },
  );
};
