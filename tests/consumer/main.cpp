// SPDX-License-Identifier: MIT
//
// Installed-package smoke test, written against the native API only (as an application
// that swaps the native Visindigo module for this library would be). Prints
// "consumer: ok" and exits 0 on success.
//
// TODO(lead): extend with the Agent classes once they exist, e.g.
//   #include <Agent/Center.h> / <Agent/Dialog.h>,
//   Visindigo::Agent::Center::getInstance()->addModel(...), createDialog(), ...
#include <Utility/JsonConfig.h>

#include <cstdio>

int main()
{
    using Visindigo::Utility::JsonConfig;

    JsonConfig config;
    config.setInt(QStringLiteral("dialog.messages.0.tokens"), 42);
    config.setString(QStringLiteral("dialog.messages.0.role"), QStringLiteral("user"));

    const JsonConfig copy = JsonConfig::fromJson(config.toString(QJsonDocument::Compact));
    if (copy.getInt(QStringLiteral("dialog.messages.0.tokens")) != 42
        || copy.getString(QStringLiteral("dialog.messages.0.role")) != QStringLiteral("user")) {
        std::fprintf(stderr, "consumer: JsonConfig round trip failed: %s\n",
                     qPrintable(copy.toString(QJsonDocument::Compact)));
        return 1;
    }
    std::printf("%s\nconsumer: ok\n", qPrintable(copy.toString(QJsonDocument::Compact)));
    return 0;
}
