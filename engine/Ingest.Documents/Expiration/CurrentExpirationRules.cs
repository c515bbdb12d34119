namespace Ingest.Documents.Expiration;

/// <summary>The store's rules in force, shared by the validator (callers' threads) and the writer thread, which alone replaces them.</summary>
internal sealed class CurrentExpirationRules
{
    private ExpirationRules _rules = ExpirationRules.Empty;

    public ExpirationRules Rules
    {
        get => Volatile.Read(ref _rules);
        set => Volatile.Write(ref _rules, value);
    }
}
