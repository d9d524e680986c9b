/**
 * The one error type that reaches clients: an HTTP status and the exact plain-text body
 * of docs/api.md#errors. Anything else becomes a 500 that leaks nothing.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(body);
  }
}

export const notFoundPayment = () => new ApiError(404, 'payment not found');
