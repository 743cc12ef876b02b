/** What a test reads of an HTTP answer: its status, its body parsed as JSON when it is JSON, and its text. */
export interface Answer {
  status: number;
  body: any;
  text: string;
}

export async function readAnswer(res: Response): Promise<Answer> {
  const text = await res.text();
  let body: any;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined; // not JSON (an HTML page, an empty 204): the text says what it was
  }
  return { status: res.status, body, text };
}
