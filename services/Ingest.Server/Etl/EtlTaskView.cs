namespace Ingest.Server.Etl;

/// <summary>A task as <c>GET /etl/{name}</c> shows it: the definition (RabbitMQ password hidden), where it comes from, and its status.</summary>
public sealed record EtlTaskView(string Name, string Origin, EtlTaskDefinition Definition, EtlTaskStatus Status);
