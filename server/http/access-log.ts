import { LogController } from 'fastify';

/**
 * Per-request log lines at `debug` instead of `info`: at tens of thousands of ingests a second,
 * access logs would cost more than the requests. `LOG_LEVEL=debug` turns them on.
 */
export class DebugAccessLog extends LogController {
  override incomingRequest(request: Parameters<LogController['incomingRequest']>[0]): void {
    request.log.debug({ req: request }, 'incoming request');
  }

  override requestCompleted(
    ...[error, , reply]: Parameters<LogController['requestCompleted']>
  ): void {
    if (error)
      reply.log.error(
        { res: reply, err: error, responseTime: reply.elapsedTime },
        'request errored',
      );
    else reply.log.debug({ res: reply, responseTime: reply.elapsedTime }, 'request completed');
  }
}
