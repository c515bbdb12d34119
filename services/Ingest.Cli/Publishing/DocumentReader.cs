using System.Buffers;
using System.Text;
using System.Text.Json;
using System.Text.Unicode;
using Ingest.Contracts.Messages;

namespace Ingest.Cli.Publishing;

/// <summary>
/// Splits an input (one JSON document, or JSON Lines) into documents, validates every one of them
/// with <see cref="Utf8JsonReader"/> and finds each id. The whole input is checked before anything
/// is returned, so a file with a bad line 9,000 publishes nothing rather than 8,999 documents.
/// </summary>
internal sealed class DocumentReader
{
    private static ReadOnlySpan<byte> Whitespace => " \t\r\n"u8;

    private readonly DocumentReaderOptions _options;
    private readonly byte[]? _idProperty;

    public DocumentReader(DocumentReaderOptions options)
    {
        ArgumentNullException.ThrowIfNull(options);
        if (options.Problem is { } problem)
        {
            throw new ArgumentException(problem, nameof(options));
        }

        _options = options;
        _idProperty = options.IdProperty is null ? null : Encoding.UTF8.GetBytes(options.IdProperty);
    }

    /// <summary>Reads a whole stream (a file or stdin) into memory, then validates it.</summary>
    public async Task<DocumentReadResult> ReadAsync(Stream input, CancellationToken cancellationToken)
    {
        ArgumentNullException.ThrowIfNull(input);

        // Validate-all-then-publish needs the whole input anyway; documents are slices of this one buffer.
        using var buffer = new MemoryStream();
        await input.CopyToAsync(buffer, cancellationToken).ConfigureAwait(false);
        return Read(buffer.GetBuffer().AsMemory(0, (int)buffer.Length));
    }

    public DocumentReadResult Read(ReadOnlyMemory<byte> input)
    {
        if (input.Span.StartsWith("\uFEFF"u8))
        {
            input = input[3..];
        }

        var documents = new List<InputDocument>();
        var errors = new List<InputError>();
        if (_options.Lines)
        {
            ReadLines(input, documents, errors);
        }
        else if (IsBlank(input.Span))
        {
            errors.Add(new InputError(null, null, "the input is empty"));
        }
        else
        {
            ReadDocument(input, 1, documents, errors);
        }

        return DocumentReadResult.From(documents, errors);
    }

    private void ReadLines(ReadOnlyMemory<byte> input, List<InputDocument> documents, List<InputError> errors)
    {
        var lineNumber = 0;
        while (!input.IsEmpty)
        {
            lineNumber++;
            var end = input.Span.IndexOf((byte)'\n');
            var line = end < 0 ? input : input[..end];
            input = end < 0 ? ReadOnlyMemory<byte>.Empty : input[(end + 1)..];

            // Blank lines (a trailing newline, a separator) are not documents.
            if (!IsBlank(line.Span))
            {
                ReadDocument(line, lineNumber, documents, errors);
            }
        }

        if (documents.Count == 0 && errors.Count == 0)
        {
            errors.Add(new InputError(null, null, "the input holds no documents"));
        }
    }

    /// <param name="json">The document with the whitespace around it, so the reader's positions match the input's.</param>
    /// <param name="firstLine">The input line <paramref name="json"/> starts on.</param>
    private void ReadDocument(ReadOnlyMemory<byte> json, int firstLine, List<InputDocument> documents, List<InputError> errors)
    {
        var body = Trim(json);
        var line = firstLine + json.Span[..json.Span.IndexOfAnyExcept(Whitespace)].Count((byte)'\n');
        if (!Utf8.IsValid(json.Span))
        {
            // Utf8JsonReader does not check every string's encoding; Ingest stores bodies as UTF-8 and would reject it.
            errors.Add(InvalidUtf8Error(json.Span, firstLine));
            return;
        }

        var reader = new Utf8JsonReader(json.Span);
        string? id = _options.Id;
        var idSeen = false;
        var rootClosed = false;
        try
        {
            reader.Read();
            if (reader.TokenType != JsonTokenType.StartObject)
            {
                errors.Add(new InputError(line, null, $"a document must be a JSON object, not {JsonTokenDescriptions.Describe(reader.TokenType)}"));
                return;
            }

            while (reader.Read())
            {
                if (reader.CurrentDepth == 0 && reader.TokenType == JsonTokenType.EndObject)
                {
                    rootClosed = true;
                }
                else if (_idProperty is not null && reader.CurrentDepth == 1 && reader.TokenType == JsonTokenType.PropertyName
                    && reader.ValueTextEquals(_idProperty))
                {
                    reader.Read();
                    if (idSeen)
                    {
                        errors.Add(new InputError(line, null, $"property \"{_options.IdProperty}\" appears more than once"));
                        return;
                    }

                    idSeen = true;
                    id = ReadId(ref reader, line, errors);
                    if (id is null)
                    {
                        return;
                    }
                }
            }
        }
        catch (JsonException ex)
        {
            errors.Add(ToInputError(ex, firstLine, rootClosed && !_options.Lines));
            return;
        }

        if (id is null)
        {
            errors.Add(new InputError(line, null, $"the document has no top-level \"{_options.IdProperty}\" property to take its id from"));
            return;
        }

        documents.Add(new InputDocument(line, id, body));
    }

    private string? ReadId(ref Utf8JsonReader reader, int line, List<InputError> errors)
    {
        string? id = reader.TokenType switch
        {
            JsonTokenType.String => reader.GetString(),

            // Numeric ids are common in exported data; use the number's text as written.
            JsonTokenType.Number => Encoding.UTF8.GetString(reader.ValueSpan),
            _ => null,
        };

        if (id is null)
        {
            errors.Add(new InputError(line, null, $"property \"{_options.IdProperty}\" must be a string or a number to be an id, not {JsonTokenDescriptions.Describe(reader.TokenType)}"));
        }
        else if (id.Length == 0)
        {
            errors.Add(new InputError(line, null, $"property \"{_options.IdProperty}\" is empty"));
            id = null;
        }

        return id;
    }

    private static InputError ToInputError(JsonException ex, int documentLine, bool afterSingleDocument)
    {
        // Utf8JsonReader appends its own 0-based "LineNumber: 0 | BytePositionInLine: 3." to the message;
        // drop it in favour of 1-based positions in the file.
        var message = ex.Message;
        var suffix = message.IndexOf(" LineNumber:", StringComparison.Ordinal);
        if (suffix > 0)
        {
            message = message[..suffix];
        }

        // Advice meant for the programmer holding the reader (trailing commas, comments), not for whoever wrote the file.
        message = message.Replace(" Change the reader options.", string.Empty, StringComparison.Ordinal);

        if (afterSingleDocument)
        {
            message += " (for JSON Lines, one document per line, pass --lines)";
        }

        var line = documentLine + (int)(ex.LineNumber ?? 0);
        int? column = ex.BytePositionInLine is { } position ? (int)position + 1 : null;
        return new InputError(line, column, message);
    }

    private static InputError InvalidUtf8Error(ReadOnlySpan<byte> json, int firstLine)
    {
        var offset = 0;
        while (Rune.DecodeFromUtf8(json[offset..], out _, out var consumed) == OperationStatus.Done)
        {
            offset += consumed;
        }

        var before = json[..offset];
        var line = firstLine + before.Count((byte)'\n');
        var column = offset - before.LastIndexOf((byte)'\n');
        return new InputError(line, column, "invalid UTF-8: the input must be UTF-8 encoded");
    }

    private static bool IsBlank(ReadOnlySpan<byte> bytes) => bytes.IndexOfAnyExcept(Whitespace) < 0;

    private static ReadOnlyMemory<byte> Trim(ReadOnlyMemory<byte> bytes)
    {
        var span = bytes.Span;
        var start = span.IndexOfAnyExcept(Whitespace);
        var end = span.LastIndexOfAnyExcept(Whitespace);
        return bytes[start..(end + 1)];
    }
}
