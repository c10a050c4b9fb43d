// Starts ipu-lsp for .ipuir files (the vscode-languageclient library
// speaks the protocol over the server's stdin and stdout).
const vscode = require("vscode");
const { LanguageClient } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("ipuir").get("server.path", "ipu-lsp");
  client = new LanguageClient("ipuir", "ipu-lsp", { command }, { documentSelector: [{ scheme: "file", language: "ipuir" }] });
  client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
